import { erasureParticipant, type Publisher } from '@postbus/bus';
import type { MailerErasure } from '../domain/erasure-participant';

/** `erasure.execute`: what the mailer holds about the person goes, then the service confirms (`erasureParticipant`). */
export const erasureExecuteHandler = (erasure: MailerErasure, publisher: Publisher) =>
  erasureParticipant('mailer', publisher, erasure.erase);
