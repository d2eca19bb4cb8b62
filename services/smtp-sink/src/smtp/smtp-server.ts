import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { collectMessage } from '@postbus/smtp';
import type { FaultInjector, SmtpReplyError } from '../domain/fault';
import type { MessageStore } from '../model/message.repository';

export interface SmtpOptions {
  store: MessageStore;
  faults: FaultInjector;
  maxMessageBytes: number;
}

function tooLarge(maxMessageBytes: number): SmtpReplyError {
  return Object.assign(new Error(`Message exceeds the fixed maximum message size of ${maxMessageBytes} bytes`), { responseCode: 552 });
}

/**
 * An SMTP server that accepts any sender and recipient without authentication or TLS and keeps
 * every message, unless a fault is injected. The receive path only copies bytes and reads a few
 * headers: it must take thousands of messages a second.
 */
export function createSmtpServer({ store, faults, maxMessageBytes }: SmtpOptions): SMTPServer {
  // A message refused at RCPT counts once against the fault, however many recipients it has: each
  // transaction's envelope is a new object, so the refusal is remembered per envelope.
  const refusedEnvelopes = new WeakMap<SMTPServerSession['envelope'], SmtpReplyError>();

  return new SMTPServer({
    name: 'smtp-sink',
    banner: 'Postbus smtp-sink',
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    hideSTARTTLS: true,
    // A PTR lookup per connection would put DNS on the receive path of every test.
    disableReverseLookup: true,
    size: maxMessageBytes,
    logger: false,
    closeTimeout: 2_000,

    onRcptTo(_address, session, callback) {
      const refused = refusedEnvelopes.get(session.envelope) ?? faults.take('rcpt');
      if (refused) refusedEnvelopes.set(session.envelope, refused);
      callback(refused ?? null);
    },

    onData(stream, session, callback) {
      void collectMessage(stream).then(
        (raw) => {
          if (stream.sizeExceeded) return callback(tooLarge(maxMessageBytes));
          const refused = faults.take('data');
          if (refused) return callback(refused);
          const { mailFrom, rcptTo } = session.envelope;
          const message = store.add({ raw, mailFrom: mailFrom ? mailFrom.address : '', rcptTo: rcptTo.map((rcpt) => rcpt.address) });
          callback(null, `OK: queued as ${message.id}`);
        },
        (error: Error) => callback(error),
      );
    },
  });
}
