import { erasureParticipant, type Publisher } from '@postbus/bus';
import type { UserErasure } from '../domain/erasure-participant';

/** `erasure.execute`: the user goes, then the service confirms (`erasureParticipant`). */
export const erasureExecuteHandler = (erasure: UserErasure, publisher: Publisher) =>
  erasureParticipant('users', publisher, (subject) => erasure.erase(subject));
