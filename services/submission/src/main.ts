import { runService } from '@postbus/http';
import { start } from './app';
import { SubmissionConfig } from './config';

runService('submission', SubmissionConfig, start);
