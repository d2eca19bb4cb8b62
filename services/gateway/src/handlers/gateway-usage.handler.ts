import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { SharedCounters } from '../http/rate-limit';

/** `gateway.usage`: the other instances' request counts, so that a rate limit holds for all instances together. */
export const gatewayUsageHandler = (counters: SharedCounters) =>
  defineHandler({ topic: Topics.GatewayUsage, type: 'gateway.usage', handle: (report) => Promise.resolve(counters.receive(report)) });
