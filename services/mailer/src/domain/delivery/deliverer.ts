import { returnPathDomainOf, type CatalogDomain, type CatalogEmail, type CatalogProject, type CatalogTemplate } from '@postbus/contracts';
import type { CopyKind, DeliveredCopy, DroppedCopy, SendContent } from '@postbus/contracts';
import type { ReturnPathClaim, ReturnPathTokens, SecretBox, TrackingTokens } from '@postbus/crypto';
import type { LoopTurns } from '@postbus/http/loop-turns';
import { TenantBusyError, variantFor, type EngineTemplate, type Rendered, type TemplateEngine } from '@postbus/templates';
import { copiesOf, type EventDoc, type MessageDoc } from '../message-records';
import type { RenderedContent } from '../message-content';
import { isBlocking } from '../suppression-reasons';
import { createHash } from 'node:crypto';
import { compose, type OutgoingAttachment } from './compose';
import { dkimKey, dkimSign, type DkimKey } from './dkim';
import type { MessageAttachments } from '../ports/messages';
import type { CatalogLookup, DeliveryOutcome, ProfileLanguages, Relay } from '../ports/delivery';
import { simulatedDelivery } from './simulated-relay';
import { chosenRender, isBehind, isPlain, layoutIdOf, plainRender, saidLanguage } from './template-choice';
import { addTracking } from './tracking';

/** What one attempt at a message came to. */
export interface Outcome {
  event: 'sent' | 'deferred' | 'bounced' | 'failed' | 'suppressed';
  smtp?: { code: number; response: string };
  reason?: string;
  subject?: string;
  /** The template's language variant rendered (or tried); absent: its default, or no template. */
  language?: string;
  /**
   * The template version rendered, when it is not the one the send was accepted with (one
   * published, or rolled back to, in between): the message read names the one the mail shows.
   */
  templateVersion?: number;
  /** The email as rendered, before tracking (viewing it must count no open): kept for the message log. */
  content?: RenderedContent;
  /** The message's cc and bcc addresses it was not sent to: suppressed, or refused by the relay. */
  droppedCopies?: DroppedCopy[];
  /** The message's cc and bcc addresses the relay took, whatever it said of the recipient. */
  deliveredCopies?: DeliveredCopy[];
}

export interface DelivererOptions {
  catalog: CatalogLookup;
  secrets: SecretBox;
  tokens: TrackingTokens;
  /** Sign the envelope sender and the List-Unsubscribe mailto address, which the inbound MX reads. */
  returnPath: ReturnPathTokens;
  relay: Relay;
  /**
   * Why each address of the project gets no mail (undefined when it gets mail), in order: a
   * message's copies are checked as its recipient is, for a message accepted at `acceptedAt`.
   */
  suppressionsOf: (projectId: string, addresses: string[], acceptedAt: Date) => Promise<Array<string | undefined>>;
  /** The gateway's public origin: one-click unsubscribe links. */
  publicBaseUrl: string;
  /** How long a trigger may wait for catalog entities that have not reached this service yet. */
  catalogWaitMs: number;
  /** The stored profile's language, for a template with variants when the send names none. */
  profiles: ProfileLanguages;
  /** Renders templates: on the event loop while they are cheap, on worker threads (each client's in turn) when not. */
  templates: TemplateEngine;
  /**
   * How long a message's render on a worker thread may keep the run it came in waiting (see
   * deliver): a run of messages is delivered side by side and committed as a whole, so every
   * client's mail behind the run waits for its slowest message.
   */
  runPatienceMs: number;
  /** Where the content of messages' attachments is kept (the gateway stored it before the trigger). */
  attachments: Pick<MessageAttachments, 'read'>;
  /**
   * Takes turns on the event loop for each mail's synchronous steps (compose, sign, hand to the
   * relay): a run's mails resume together, and the reads this process serves go in between.
   */
  turns: LoopTurns;
}

/** A template send's stored email and template, and what of the template its message renders. */
interface StoredSend {
  email: CatalogEmail;
  template: CatalogTemplate;
  render: EngineTemplate;
  /** The language variant rendered; null: the default. */
  language: string | null;
}

interface Resolved {
  project: CatalogProject;
  /** A content send has none. */
  stored: StoredSend | undefined;
  domain: CatalogDomain;
  trackingDomain: CatalogDomain | undefined;
}

/** The language a message's template send wants, once asked (see Deliverer.wantedLanguage). */
interface WantedLanguage {
  language?: Promise<string | null>;
}

/** What a message is sent as: its catalog entities, its From, Reply-To and tracking, and which reasons keep an address from it. */
interface Sender extends Resolved {
  from: { name: string | null; address: string };
  /** The email's (or the project's) Reply-To, when the send gives none. */
  replyTo: string | null;
  track: { opens: boolean; clicks: boolean };
  /** Whether a suppression reason keeps an address from this email (the unsubscribed get some emails). */
  suppressed: (reason: string | undefined) => reason is string;
}

/** One attempt's mail, the same for the recipient and every copy but for the addressee. */
interface Mail {
  message: MessageDoc;
  sender: Sender;
  rendered: Rendered;
  /** The rendered HTML with tracking. */
  html: string;
  attachments: OutgoingAttachment[];
  /** The further To addresses and the cc addresses the header names (the recipient's is first in To). */
  toHeader: string[];
  ccHeader: string[];
  /** The sender domain's DKIM key. */
  key: DkimKey;
  attempt: number;
}

/**
 * A return-path address: a signed token naming the message (and the copy, for a copy's own mail),
 * at the sender domain's return-path domain, whose MX is Postbus's inbound service. `bounce`: the
 * envelope sender (VERP); `unsubscribe`: the List-Unsubscribe mailto address, read by the inbound
 * MX like a one-click unsubscribe. Only this installation can make one, so a forged report names
 * no message.
 */
export const returnPathAddress = (returnPath: ReturnPathTokens, claim: ReturnPathClaim, senderDomain: string): string =>
  `${returnPath.localPart(claim)}@${returnPathDomainOf(senderDomain)}`;

const copyKey = (c: { email: string; kind: CopyKind }) => `${c.kind}:${c.email}`;

/**
 * A content send's mail as it brought it. Without a text part it has none: making one from a
 * large HTML body would hold the event loop every client's mail shares.
 */
const contentRendered = (content: SendContent): Rendered => ({
  subject: content.subject,
  html: content.html ?? '',
  text: content.text ?? '',
});

const CATALOG_POLL_MS = 200;
const CACHE_LIMIT = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Memoises by key, forgetting everything when full (keys are few and change rarely). */
class Memo<V> {
  private readonly values = new Map<string, V>();
  get(key: string, make: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      if (this.values.size >= CACHE_LIMIT) this.values.clear();
      this.values.set(key, (value = make()));
    }
    return value;
  }
}

/**
 * Turns one accepted trigger into one email: checks it against this service's catalog projection,
 * renders it (in the recipient's language variant and the layout its parts name), adds tracking and the unsubscribe headers, signs it with the sender domain's DKIM
 * key and hands it to the relay, once for the recipient and once for each copy.
 */
export class Deliverer {
  private readonly keys = new Memo<DkimKey>();
  /** Messages deferred because their client's heavy renders were busy: their next attempt waits its turn. */
  private readonly renderDeferred = new Set<string>();

  /** The gateway's public origin: the host one-click unsubscribe links are signed for, the scheme of tracking links. */
  private readonly publicUrl: URL;

  constructor(private readonly options: DelivererOptions) {
    this.publicUrl = new URL(options.publicBaseUrl);
  }

  /**
   * `suppression`: why the address gets no mail, when it is suppressed. `attempt`: which attempt
   * this is (a test message's simulated outcome may depend on it). `earlier`: the message's
   * entries before this attempt; a copy an earlier attempt delivered is not sent again (the relay
   * may have taken a copy's own mail while it deferred the recipient's).
   *
   * Its phases: what the message needs (the catalog, the sender), its render, its attachments and
   * tracking, which copies go, then one SMTP transaction each for the recipient and every copy.
   */
  async deliver(message: MessageDoc, suppression: string | undefined, attempt = 1, earlier: EventDoc[] = []): Promise<Outcome> {
    const sender = await this.senderOf(message, suppression);
    if ('event' in sender) return sender;
    const rendered = await this.render(message, sender);
    if ('event' in rendered) return rendered;
    const attachments = await this.attachmentsOf(message);
    if (typeof attachments === 'string') return { event: 'failed', reason: attachments };
    const html = await this.tracked(message, sender, rendered.html);
    const copies = await this.copiesToSend(message, earlier, sender.suppressed);
    const key = this.keys.get(`${sender.domain.id}:${sender.domain.revision}`, () =>
      dkimKey(sender.domain.domain, sender.domain.dkim!.selector, this.options.secrets.open(sender.domain.dkim!.privateKey)),
    );
    const { toHeader, ccHeader } = copies;
    const mail: Mail = { message, sender, rendered, html, attachments, toHeader, ccHeader, key, attempt };
    const result = await this.sendTo(mail, message.email);
    // Each copy is its own delivery, whatever the recipient's came to. One the relay turned away
    // for now goes again with the recipient's next attempt; when there is none, it is dropped.
    const copyResults = await Promise.all(copies.kept.map((c) => this.sendTo(mail, c.email, c.position)));
    const { dropped } = copies;
    const delivered: DeliveredCopy[] = [];
    copies.kept.forEach((c, i) => {
      const r = copyResults[i]!;
      if (r.status === 'sent') delivered.push({ email: c.email, kind: c.kind });
      else if (!(r.status === 'deferred' && result.status === 'deferred'))
        dropped.push({ email: c.email, kind: c.kind, reason: `refused by the relay: ${r.code} ${r.response}`.slice(0, 500) });
    });
    return {
      event: result.status,
      smtp: { code: result.code, response: result.response },
      subject: rendered.subject,
      ...(sender.stored?.language ? { language: sender.stored.language } : {}),
      ...(sender.stored && sender.stored.template.version !== message.templateVersion
        ? { templateVersion: sender.stored.template.version }
        : {}),
      content: { subject: rendered.subject, html: rendered.html, text: rendered.text },
      ...(dropped.length > 0 ? { droppedCopies: dropped } : {}),
      ...(delivered.length > 0 ? { deliveredCopies: delivered } : {}),
    };
  }

  /** The catalog entities the message needs and its From address, or the outcome that ends it here (failed, suppressed). */
  private async senderOf(message: MessageDoc, suppression: string | undefined): Promise<Sender | Outcome> {
    const resolved = await this.resolve(message);
    if (typeof resolved === 'string') return { event: 'failed', reason: resolved };
    const { project, stored, domain } = resolved;
    const { content } = message;
    // An email sent to the unsubscribed too (a receipt, a password reset) still never reaches
    // someone whose erasure is pending: from the request on, the person gets no mail (docs/architecture.md#erasure).
    // So does an address whose mail system bounced or complained (isBlocking). A content send
    // keeps every suppression: it cannot say it is one of those emails.
    const sendToUnsubscribed = stored?.email.sendToUnsubscribed ?? false;
    const suppressed = (reason: string | undefined): reason is string => !!reason && (isBlocking(reason) || !sendToUnsubscribed);
    if (suppressed(suppression)) return { event: 'suppressed', reason: suppression };
    const own = content ? { fromEmail: content.fromEmail ?? null, fromName: content.fromName } : stored?.email;
    const fromAddress = own?.fromEmail ?? project.fromEmail ?? `no-reply@${domain.domain}`;
    // A sender's own address comes with its own name (or none); without one, the project's is the name.
    const fromName = own?.fromEmail ? (own.fromName ?? null) : (own?.fromName ?? project.fromName);
    // Checked again here, whatever the gateway let through: a client sends only as its own verified domain.
    const fromDomain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1).toLowerCase();
    if (fromDomain !== domain.domain) {
      return {
        event: 'failed',
        reason: `sender: the from address is on ${fromDomain}, not on the project's sender domain ${domain.domain}`,
      };
    }
    const track = content
      ? { opens: content.trackOpens, clicks: content.trackClicks }
      : { opens: !!stored?.email.trackOpens, clicks: !!stored?.email.trackClicks };
    const replyTo = stored?.email.replyTo ?? project.replyTo;
    return { ...resolved, from: { name: fromName, address: fromAddress }, replyTo, track, suppressed };
  }

  /**
   * The message rendered, or the outcome of a render that could not be made. A heavy template
   * renders on a worker thread, its client's renders one after another. A first attempt (a run's)
   * waits for its client's turn and its render runPatienceMs at most, then is deferred: one
   * client's heavy templates never hold the run, and everyone's mail behind it, longer. Its next
   * attempt (the retry worker's, holding no run) waits its turn.
   */
  private async render(message: MessageDoc, { project, stored }: Sender): Promise<Rendered | Outcome> {
    // A content send is sent as the app made it: no template runs on it.
    if (!stored) return contentRendered(message.content!);
    const patient = this.renderDeferred.delete(message._id);
    try {
      return await this.options.templates.render(
        stored.render,
        { user: message.user, data: message.data },
        project.clientId,
        patient ? {} : { maxWaitMs: this.options.runPatienceMs, patienceMs: this.options.runPatienceMs },
      );
    } catch (error) {
      const variant = stored.language ? { language: stored.language } : {};
      // Not this message's fault: tried again later, like mail a busy relay turned away.
      if (error instanceof TenantBusyError) {
        if (this.renderDeferred.size >= CACHE_LIMIT * 10) this.renderDeferred.clear();
        this.renderDeferred.add(message._id);
        return { event: 'deferred', reason: `render: ${error.message}`, ...variant };
      }
      return { event: 'failed', reason: `render: ${(error as Error).message.split('\n')[0] ?? 'error'}`, ...variant };
    }
  }

  /** The HTML with open and click tracking, when the email asks for it and the project has a verified tracking domain. */
  private async tracked(message: MessageDoc, { track, trackingDomain }: Sender, html: string): Promise<string> {
    if (!trackingDomain || !html || !(track.opens || track.clicks)) return html;
    return addTracking(html, {
      tokens: this.options.tokens,
      messageId: message._id,
      projectId: message.projectId,
      baseUrl: `${this.publicUrl.protocol}//${trackingDomain.domain}`,
      opens: track.opens,
      clicks: track.clicks,
    });
  }

  /**
   * The copies this attempt sends, and those it drops. A copy goes to an address only as the
   * recipient's own mail would: a suppressed one is dropped, the others still get it. An erased
   * person's address is gone from the copies (a message scheduled, or retried, past the erasure).
   * The mail is the same at every attempt and for every copy: its Cc header names the copies sent
   * before too.
   */
  private async copiesToSend(
    message: MessageDoc,
    earlier: EventDoc[],
    suppressed: Sender['suppressed'],
  ): Promise<{ kept: ReturnType<typeof copiesOf>; dropped: DroppedCopy[]; toHeader: string[]; ccHeader: string[] }> {
    const copies = copiesOf(message);
    const sentBefore = new Set(earlier.flatMap((e) => (e.deliveredCopies ?? []).map(copyKey)));
    const pending = copies.filter((c) => !sentBefore.has(copyKey(c)));
    const reasons =
      pending.length > 0
        ? await this.options.suppressionsOf(
            message.projectId,
            pending.map((c) => c.email),
            message.acceptedAt,
          )
        : [];
    const dropped: DroppedCopy[] = pending.flatMap((c, i) =>
      suppressed(reasons[i]) ? [{ email: c.email, kind: c.kind, reason: reasons[i] }] : [],
    );
    const kept = pending.filter((_, i) => !suppressed(reasons[i]));
    const droppedKeys = new Set(dropped.map(copyKey));
    const named = (kind: CopyKind) => copies.filter((c) => c.kind === kind && !droppedKeys.has(copyKey(c))).map((c) => c.email);
    return { kept, dropped, toHeader: named('to'), ccHeader: named('cc') };
  }

  /**
   * The mail to the recipient, or to one copy, in its own SMTP transaction: its envelope sender
   * (a bounce address naming the message, VERP) and its List-Unsubscribe links name that
   * addressee alone, so a copy's bounce, complaint or unsubscribe is the copy's. The return-path
   * domain is a subdomain of the From domain: relaxed DMARC alignment holds. A test message is
   * composed and signed as any other, and goes nowhere: its outcome is simulated.
   */
  private async sendTo(mail: Mail, to: string, copy?: number): Promise<DeliveryOutcome> {
    const { message, sender, rendered, html, attachments, toHeader, ccHeader, key, attempt } = mail;
    const { domain, from } = sender;
    const { tokens, publicBaseUrl, turns, relay, returnPath } = this.options;
    const at = copy !== undefined ? { copy } : {};
    const unsubscribeToken = await tokens.sign({
      action: 'unsubscribe',
      messageId: message._id,
      projectId: message.projectId,
      host: this.publicUrl.hostname,
      ...at,
    });
    const raw = await turns.run(() =>
      compose({
        messageId: message._id,
        senderDomain: domain.domain,
        from,
        to: [message.email, ...toHeader],
        ...(ccHeader.length > 0 ? { cc: ccHeader } : {}),
        // The send's own reply-to wins over the email's, which wins over the project's.
        replyTo: message.replyTo ?? sender.replyTo,
        ...(message.headers ? { headers: message.headers } : {}),
        ...(attachments.length > 0 ? { attachments } : {}),
        subject: rendered.subject,
        html,
        text: rendered.text,
        unsubscribe: {
          url: `${publicBaseUrl}/t/u/${unsubscribeToken}`,
          mailto: `mailto:${returnPathAddress(returnPath, { purpose: 'unsubscribe', messageId: message._id, ...at }, domain.domain)}?subject=unsubscribe`,
        },
      }),
    );
    const signed = await turns.run(() => dkimSign(raw, key));
    const bounceAddress = returnPathAddress(returnPath, { purpose: 'bounce', messageId: message._id, ...at }, domain.domain);
    return message.test ? simulatedDelivery(to, attempt) : turns.run(() => relay.send(bounceAddress, to, signed));
  }

  /**
   * The message's attachments, read back by id (every attempt reads the same stored bytes); a
   * string says which one is gone (erased, purged) or is not what the gateway accepted.
   */
  private async attachmentsOf(message: MessageDoc): Promise<OutgoingAttachment[] | string> {
    const refs = message.attachments ?? [];
    const read = await Promise.all(refs.map((ref, position) => this.options.attachments.read(message._id, position, ref.size)));
    const outgoing: OutgoingAttachment[] = [];
    for (const [position, ref] of refs.entries()) {
      const content = read[position];
      if (!content) return `attachments: the content of attachment ${position} is not stored`;
      if (createHash('sha256').update(content).digest('hex') !== ref.sha256)
        return `attachments: the content of attachment ${position} is not what was accepted`;
      outgoing.push({
        filename: ref.filename,
        contentType: ref.contentType,
        content,
        ...(ref.contentId !== undefined ? { contentId: ref.contentId } : {}),
      });
    }
    return outgoing;
  }

  /**
   * The catalog entities a message needs, waiting a bounded time for ones still on their way
   * (the catalog and the trigger travel on different topics); a string says what is missing.
   */
  private async resolve(message: MessageDoc): Promise<Resolved | string> {
    const deadline = message.acceptedAt.getTime() + this.options.catalogWaitMs;
    // The language wanted is asked for once, however long the wait for the catalog.
    const wanted: WantedLanguage = {};
    for (;;) {
      const found = await this.lookUp(message, wanted);
      if (typeof found !== 'string' || Date.now() >= deadline) return found;
      await sleep(CATALOG_POLL_MS);
    }
  }

  /** One look at the catalog; a template with no variants and no layout (isPlain) is rendered as it is, nothing more read. */
  private async lookUp(message: MessageDoc, wanted: WantedLanguage): Promise<Resolved | string> {
    const { catalog } = this.options;
    const { emailId, templateId } = message;
    const [project, email, template] = await Promise.all([
      catalog.get('project', message.projectId),
      emailId !== undefined ? catalog.get('email', emailId) : undefined,
      templateId !== undefined ? catalog.get('template', templateId) : undefined,
    ]);
    if (!project) return 'catalog: the project does not exist';
    const content = message.content !== undefined;
    if (!content && !email) return 'catalog: the transactional email does not exist';
    if (!content && (!template || isBehind(template, message))) return 'catalog: the template does not exist';
    const [domain, trackingDomain] = await Promise.all([
      project.senderDomainId ? catalog.get('domain', project.senderDomainId) : undefined,
      project.trackingDomainId ? catalog.get('domain', project.trackingDomainId) : undefined,
    ]);
    if (!domain?.dkim) return 'catalog: the project has no sender domain';
    if (domain.status !== 'verified') return `catalog: the sender domain ${domain.domain} is not verified`;
    let stored: StoredSend | undefined;
    if (email && template) {
      if (isPlain(template)) stored = { email, template, render: plainRender(template), language: null };
      else {
        const chosen = await this.chosen(message, template, wanted);
        if (typeof chosen === 'string') return chosen;
        stored = { email, template, ...chosen };
      }
    }
    return { project, stored, domain, trackingDomain: trackingDomain?.status === 'verified' ? trackingDomain : undefined };
  }

  /**
   * What a template with variants or a layout renders for this message: the variant of the
   * language wanted (or the default) in the layout its parts name; a string says the layout is
   * missing (it may still be on its way).
   */
  private async chosen(
    message: MessageDoc,
    template: CatalogTemplate,
    wanted: WantedLanguage,
  ): Promise<Pick<StoredSend, 'render' | 'language'> | string> {
    const variant = template.variants?.length
      ? variantFor(template.variants, await (wanted.language ??= this.wantedLanguage(message)))
      : null;
    const layoutId = layoutIdOf(template, variant);
    const layout = layoutId !== null ? await this.options.catalog.get('layout', layoutId) : null;
    if (layout === undefined || (layout !== null && layout.projectId !== message.projectId)) return 'catalog: the layout does not exist';
    return { render: chosenRender(template, variant, layout), language: variant?.language ?? null };
  }

  /** The language the send says, else the one the user's stored profile gives (asked only then). */
  private wantedLanguage(message: MessageDoc): Promise<string | null> {
    const said = saidLanguage(message);
    if (said !== undefined) return Promise.resolve(said);
    return this.options.profiles.languageOf(message.projectId, { userId: message.userId, email: message.email });
  }
}
