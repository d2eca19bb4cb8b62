import { defineHandler } from '@postbus/bus';
import { Topics } from '@postbus/contracts';
import type { Feedback } from '../domain/feedback';

/** `feedback.complaint`: a recipient reported one of our messages as spam. */
export const feedbackComplaintHandler = (feedback: Feedback) =>
  defineHandler({ topic: Topics.Feedback, type: 'feedback.complaint', handle: (data) => feedback.complaint(data) });
