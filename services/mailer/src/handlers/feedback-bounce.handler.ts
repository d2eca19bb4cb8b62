import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Feedback } from '../domain/feedback';

/** `feedback.bounce`: a delivery report the inbound MX read about one of our messages; a run of them is recorded together. */
export const feedbackBounceHandler = (feedback: Feedback) =>
  defineHandler({
    topic: Topics.Feedback,
    type: 'feedback.bounce',
    handle: (data) => feedback.bounce(data),
    handleBatch: (items) => feedback.bounces(items.map((i) => i.data)),
  });
