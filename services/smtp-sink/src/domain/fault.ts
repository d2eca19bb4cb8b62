export type FaultStage = 'rcpt' | 'data';

export interface FaultSpec {
  /** The SMTP reply code, 400–599. */
  code: number;
  message?: string;
  /** How many messages get the fault; unlimited when absent. */
  count?: number;
  /** How long the fault lasts; until cleared when absent. */
  forMs?: number;
  stage?: FaultStage;
}

export interface ActiveFault {
  code: number;
  message: string;
  stage: FaultStage;
  /** Messages still to refuse; null for no limit. */
  remaining: number | null;
  /** When the fault ends (ms since the epoch); null for never. */
  expiresAt: number | null;
}

/** What smtp-server turns into the reply: the code from `responseCode`, the text from `message`. */
export interface SmtpReplyError extends Error {
  responseCode: number;
}

const defaultMessage = (code: number): string =>
  code < 500 ? 'Temporary failure, try again later (injected by smtp-sink)' : 'Rejected (injected by smtp-sink)';

/** Checks a fault request body, naming every bad field; the message may not break the SMTP reply line. */
export function validateFaultSpec(body: unknown): { spec?: FaultSpec; problems: string[] } {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { problems: ['the body must be a JSON object'] };
  const { code, message, count, for_ms: forMs, stage } = body as Record<string, unknown>;
  const positiveInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value > 0;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 400 || code > 599)
    problems.push('code must be an integer from 400 to 599');
  if (message !== undefined && (typeof message !== 'string' || message.length > 200 || /[\r\n]/.test(message)))
    problems.push('message must be a string of at most 200 characters on one line');
  if (count !== undefined && !positiveInteger(count)) problems.push('count must be a positive integer');
  if (forMs !== undefined && !positiveInteger(forMs)) problems.push('for_ms must be a positive integer');
  if (stage !== undefined && stage !== 'rcpt' && stage !== 'data') problems.push('stage must be "rcpt" or "data"');
  if (problems.length) return { problems };
  return {
    spec: {
      code: code as number,
      ...(message !== undefined && { message: message as string }),
      ...(count !== undefined && { count: count as number }),
      ...(forMs !== undefined && { forMs: forMs as number }),
      ...(stage !== undefined && { stage: stage as FaultStage }),
    },
    problems,
  };
}

/** The one fault the sink injects at a time, if any: a reply code for the next messages and/or for a while. */
export class FaultInjector {
  private fault: ActiveFault | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  set({ code, message, count, forMs, stage = 'rcpt' }: FaultSpec): ActiveFault {
    this.fault = {
      code,
      message: message ?? defaultMessage(code),
      stage,
      remaining: count ?? null,
      expiresAt: forMs === undefined ? null : this.now() + forMs,
    };
    return { ...this.fault };
  }

  clear(): void {
    this.fault = undefined;
  }

  current(): ActiveFault | undefined {
    if (this.fault && this.fault.expiresAt !== null && this.now() >= this.fault.expiresAt) this.fault = undefined;
    return this.fault && { ...this.fault };
  }

  /**
   * The error to answer a message with at this stage, if the fault applies; it uses up one of
   * `count`. Called for every message, so the common case (no fault) returns at once.
   */
  take(stage: FaultStage): SmtpReplyError | undefined {
    if (!this.fault) return undefined;
    const fault = this.current();
    if (!fault || fault.stage !== stage) return undefined;
    if (this.fault.remaining !== null && --this.fault.remaining <= 0) this.fault = undefined;
    return Object.assign(new Error(fault.message), { responseCode: fault.code });
  }
}
