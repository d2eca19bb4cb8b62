import { runService } from '@postbus/http';
import { start } from './app';
import { SmtpSinkConfig } from './config';

runService('smtp-sink', SmtpSinkConfig, start);
