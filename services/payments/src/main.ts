import { runService } from '@postbus/http';
import { start } from './app';
import { PaymentsConfig } from './config';

runService('payments', PaymentsConfig, start);
