import { runService } from '@postbus/http';
import { start } from './app';
import { GatewayConfig } from './config';

runService('gateway', GatewayConfig, start);
