import type { Handler } from '@postbus/bus';
import type { Erasures } from '../domain/erasures';
import { erasureConfirmedHandler } from './erasure-confirmed.handler';
import { erasureRequestHandler } from './erasure-request.handler';

/** Erase requests from the gateway and the participants' confirmations. */
export const erasureHandlers = (erasures: Erasures): Handler[] =>
  [erasureRequestHandler(erasures), erasureConfirmedHandler(erasures)] as Handler[];
