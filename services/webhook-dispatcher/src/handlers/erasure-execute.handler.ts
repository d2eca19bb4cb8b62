import { erasureParticipant, type Publisher } from '@postbus/bus';
import type { DeliveryErasure } from '../domain/erasure-participant';

/** `erasure.execute`: the deliveries about the person go, with their attempts, then the service confirms (`erasureParticipant`). */
export const erasureExecuteHandler = (erasure: DeliveryErasure, publisher: Publisher) =>
  erasureParticipant('webhook-dispatcher', publisher, (subject, ctx) => erasure.erase(subject, ctx));
