import { runService } from '@postbus/http';
import { start } from './app';
import { InboundConfig } from './config';

runService('inbound', InboundConfig, start);
