import { runService } from '@postbus/http';
import { start } from './app';
import { ErasureConfig } from './config';

runService('erasure', ErasureConfig, start);
