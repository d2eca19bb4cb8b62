import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { ReportIntake } from '../domain/report-intake';

/** Mail the MX stored: read for the feedback it carries, one run at a time (see ReportIntake). */
export const inboundReceivedHandler = (intake: ReportIntake) =>
  defineHandler({
    topic: Topics.InboundMail,
    type: 'inbound.received',
    handle: (mail, ctx) => intake.take([{ id: ctx.id, mail }]),
    handleBatch: async (items) => {
      await intake.take(items.map(({ data, ctx }) => ({ id: ctx.id, mail: data })));
      return [];
    },
  });
