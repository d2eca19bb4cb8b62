import { runService } from '@postbus/http';
import { start } from './app';
import { DispatcherConfig } from './config';

runService('webhook-dispatcher', DispatcherConfig, start);
