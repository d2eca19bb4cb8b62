import { runService } from '@postbus/http';
import { start } from './app';
import { StatusConfig } from './config';

runService('status', StatusConfig, start);
