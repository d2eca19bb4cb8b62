import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Erasures } from '../domain/erasures';

/** `erasure.confirmed` (from a participant): records it; once all have confirmed, the erasure completes (`user.erased`). */
export const erasureConfirmedHandler = (erasures: Erasures) =>
  defineHandler({ topic: Topics.ErasureEvents, type: 'erasure.confirmed', handle: (event, ctx) => erasures.confirmed(event, ctx) });
