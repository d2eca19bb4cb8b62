import { erasureParticipant, type Publisher } from '@postbus/bus';
import type { PaymentErasure } from '../domain/erasure-participant';

/** `erasure.execute`: the person's payments are anonymised and the service forgets them, then confirms (`erasureParticipant`). */
export const erasureExecuteHandler = (erasure: PaymentErasure, publisher: Publisher) =>
  erasureParticipant('payments', publisher, (subject) => erasure.erase(subject));
