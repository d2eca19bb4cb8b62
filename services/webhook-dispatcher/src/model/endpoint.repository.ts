import { randomBytes } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { WebhookFormat } from '@postbus/contracts';
import type { Sealed, SecretBox } from '@postbus/crypto';
import { KeyedSerializer } from '@postbus/db';
import type { EndpointDirectory } from '../domain/ports';
import type { EndpointDoc } from '../domain/records';

export interface EndpointInput {
  url: string;
  events: string[];
  projectId: string | null;
  description: string | null;
  enabled: boolean;
  format: WebhookFormat;
}

const endpointSchema = new Schema<EndpointDoc>(
  {
    _id: String,
    clientId: String,
    projectId: { type: String, default: null },
    url: String,
    events: [String],
    description: { type: String, default: null },
    enabled: Boolean,
    format: String,
    disabledReason: { type: String, default: null },
    secrets: Schema.Types.Mixed,
    createdAt: Date,
    updatedAt: Date,
  },
  { collection: 'endpoints', versionKey: false, minimize: false },
);
endpointSchema.index({ clientId: 1, createdAt: 1 });

export const newEndpointId = (): string => `we_${randomBytes(12).toString('hex')}`;
/** A Standard Webhooks secret: `whsec_` and 24 random bytes, base64. */
export const newSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * Webhook endpoints (a small collection: updates are fine here). Secrets are sealed at rest and
 * opened only to sign; after a rotation the previous one signs too until it expires.
 */
export class EndpointStore implements EndpointDirectory {
  private readonly Endpoint;
  private readonly perEndpoint = new KeyedSerializer();
  private cache: { endpoints: Promise<EndpointDoc[]>; expires: number } | undefined;
  /**
   * Each sealed secret of a cached endpoint opened once, for as long as that copy of the endpoint
   * is held (the short cache, an attempt in flight): opening it for every attempt was 5 % of the
   * dispatcher's CPU.
   */
  private readonly opened = new WeakMap<Sealed, string>();

  constructor(
    connection: Connection,
    private readonly secrets: SecretBox,
    private readonly cacheTtlMs = 2_000,
  ) {
    this.Endpoint = connection.model<EndpointDoc>('Endpoint', endpointSchema);
  }

  async init(): Promise<void> {
    await this.Endpoint.init();
  }

  /** Creates an endpoint; returns it with its first secret in clear (shown once). */
  async create(clientId: string, input: EndpointInput): Promise<{ endpoint: EndpointDoc; secret: string }> {
    const secret = newSecret();
    const now = new Date();
    const doc: EndpointDoc = {
      _id: newEndpointId(),
      clientId,
      ...input,
      disabledReason: null,
      secrets: [{ sealed: this.secrets.seal(secret), createdAt: now, expiresAt: null }],
      createdAt: now,
      updatedAt: now,
    };
    await this.Endpoint.create(doc);
    this.forget();
    return { endpoint: doc, secret };
  }

  list(clientId: string): Promise<EndpointDoc[]> {
    return this.Endpoint.find({ clientId }).sort({ createdAt: 1 }).lean<EndpointDoc[]>().exec();
  }

  async get(clientId: string, id: string): Promise<EndpointDoc | null> {
    const doc = await this.Endpoint.findById(id).lean<EndpointDoc>().exec();
    return doc && doc.clientId === clientId ? doc : null;
  }

  async byId(id: string): Promise<EndpointDoc | null> {
    return this.Endpoint.findById(id).lean<EndpointDoc>().exec();
  }

  async update(clientId: string, id: string, patch: Partial<EndpointInput>): Promise<EndpointDoc | null> {
    const set: Record<string, unknown> = { ...patch, updatedAt: new Date() };
    // Enabling by hand clears the reason the dispatcher disabled it for.
    if (patch.enabled === true) set['disabledReason'] = null;
    const doc = await this.perEndpoint.run(id, () =>
      this.Endpoint.findOneAndUpdate({ _id: id, clientId }, { $set: set }, { returnDocument: 'after' }).lean<EndpointDoc>().exec(),
    );
    this.forget();
    return doc;
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    const deleted = (await this.Endpoint.deleteOne({ _id: id, clientId }).exec()).deletedCount === 1;
    this.forget();
    return deleted;
  }

  /** A new secret; the current ones keep signing for `overlapMs`. Returns the new secret in clear. */
  async rotate(clientId: string, id: string, overlapMs: number): Promise<string | null> {
    const secret = newSecret();
    const now = new Date();
    const doc = await this.perEndpoint.run(id, async () => {
      const current = await this.get(clientId, id);
      if (!current) return null;
      const kept = current.secrets
        .filter((s) => !s.expiresAt || s.expiresAt > now)
        .map((s) => ({ ...s, expiresAt: s.expiresAt ?? new Date(now.getTime() + overlapMs) }));
      const secrets = [{ sealed: this.secrets.seal(secret), createdAt: now, expiresAt: null }, ...kept];
      return this.Endpoint.findOneAndUpdate({ _id: id }, { $set: { secrets, updatedAt: now } }, { returnDocument: 'after' })
        .lean<EndpointDoc>()
        .exec();
    });
    this.forget();
    return doc ? secret : null;
  }

  /** The dispatcher turns an endpoint off (410 Gone); the client turns it on again with PATCH. */
  async disable(id: string, reason: string): Promise<void> {
    await this.perEndpoint.run(id, () =>
      this.Endpoint.updateOne({ _id: id }, { $set: { enabled: false, disabledReason: reason, updatedAt: new Date() } }).exec(),
    );
    this.forget();
  }

  /** The secrets that sign now (newest first), in clear. */
  signingSecrets(endpoint: EndpointDoc, now = new Date()): string[] {
    return endpoint.secrets.filter((s) => !s.expiresAt || s.expiresAt > now).map((s) => this.open(s.sealed));
  }

  private open(sealed: Sealed): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) this.opened.set(sealed, (secret = this.secrets.open(sealed)));
    return secret;
  }

  /** An endpoint as the short cache of enabled endpoints has it (a disabled or deleted one reads from the database). */
  async cachedById(id: string): Promise<EndpointDoc | null> {
    const found = (await this.enabledEndpoints()).find((e) => e._id === id);
    return found ?? this.byId(id);
  }

  private enabledEndpoints(): Promise<EndpointDoc[]> {
    const now = Date.now();
    if (!this.cache || this.cache.expires <= now) {
      this.cache = { endpoints: this.Endpoint.find({ enabled: true }).lean<EndpointDoc[]>().exec(), expires: now + this.cacheTtlMs };
      this.cache.endpoints.catch(() => (this.cache = undefined));
    }
    return this.cache.endpoints;
  }

  /** Enabled endpoints subscribed to this event of this client (and project), from a short cache. */
  async matching(clientId: string, projectId: string | null, type: string): Promise<EndpointDoc[]> {
    return (await this.enabledEndpoints()).filter(
      (e) =>
        e.enabled &&
        e.clientId === clientId &&
        (e.projectId === null || e.projectId === projectId) &&
        (e.events.includes('*') || e.events.includes(type)),
    );
  }

  private forget(): void {
    this.cache = undefined;
  }
}
