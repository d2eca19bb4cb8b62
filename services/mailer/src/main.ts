import { runService } from '@postbus/http';
import { start } from './app';
import { MailerConfig } from './config';

runService('mailer', MailerConfig, start);
