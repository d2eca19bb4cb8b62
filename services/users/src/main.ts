import { runService } from '@postbus/http';
import { start } from './app';
import { UsersConfig } from './config';

runService('users', UsersConfig, start);
