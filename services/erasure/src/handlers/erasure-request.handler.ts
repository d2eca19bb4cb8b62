import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Erasures } from '../domain/erasures';

/** `erasure.request` (from the gateway): queues the erasure, or joins the one already open for the person. */
export const erasureRequestHandler = (erasures: Erasures) =>
  defineHandler({ topic: Topics.ErasureCommands, type: 'erasure.request', handle: (cmd, ctx) => erasures.request(cmd, ctx) });
