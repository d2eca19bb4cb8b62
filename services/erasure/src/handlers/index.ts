import { defineHandler, type Handler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Erasures } from '../erasures';

/** Erase requests from the gateway and the participants' confirmations. */
export const erasureHandlers = (erasures: Erasures): Handler[] =>
  [
    defineHandler({ topic: Topics.ErasureCommands, type: 'erasure.request', handle: (cmd, ctx) => erasures.request(cmd, ctx) }),
    defineHandler({ topic: Topics.ErasureEvents, type: 'erasure.confirmed', handle: (event, ctx) => erasures.confirmed(event, ctx) }),
  ] as Handler[];
