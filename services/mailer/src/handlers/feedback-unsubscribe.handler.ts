import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Feedback } from '../domain/feedback';

/** `feedback.unsubscribe`: a recipient mailed the List-Unsubscribe address of one of our messages. */
export const feedbackUnsubscribeHandler = (feedback: Feedback) =>
  defineHandler({ topic: Topics.Feedback, type: 'feedback.unsubscribe', handle: (data, ctx) => feedback.unsubscribe(data, ctx.id) });
