import { Schema, Types, type Connection } from 'mongoose';
import { mapFields } from './field-map';
import type { CreateEmailRequest, TransactionalEmail, UpdateEmailRequest } from '@postbus/contracts';
import { isDuplicateKeyError, KeyedSerializer } from '@postbus/db';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource, type EmailLookup } from '../domain/ports/catalog';

interface EmailDoc {
  _id: Types.ObjectId;
  clientId: string;
  projectId: string;
  key: string;
  name: string;
  templateId: string;
  trackOpens: boolean;
  trackClicks: boolean;
  sendToUnsubscribed: boolean;
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const emailSchema = new Schema<EmailDoc>(
  {
    clientId: { type: String, required: true },
    projectId: { type: String, required: true },
    key: { type: String, required: true },
    name: { type: String, required: true },
    templateId: { type: String, required: true },
    trackOpens: { type: Boolean, default: false },
    trackClicks: { type: Boolean, default: false },
    sendToUnsubscribed: { type: Boolean, default: false },
    fromEmail: { type: String, default: null },
    fromName: { type: String, default: null },
    replyTo: { type: String, default: null },
  },
  { collection: 'transactional_emails', timestamps: true, versionKey: false },
);
emailSchema.index({ projectId: 1, key: 1 }, { unique: true });

const FIELD_OF = {
  key: 'key',
  name: 'name',
  template_id: 'templateId',
  track_opens: 'trackOpens',
  track_clicks: 'trackClicks',
  send_to_unsubscribed: 'sendToUnsubscribed',
  from_email: 'fromEmail',
  from_name: 'fromName',
  reply_to: 'replyTo',
} as const satisfies Record<keyof CreateEmailRequest, keyof EmailDoc>;

const toDoc = (body: UpdateEmailRequest): Partial<EmailDoc> => mapFields<UpdateEmailRequest, EmailDoc>(body, FIELD_OF);

export const toTransactionalEmail = (e: EmailDoc): TransactionalEmail => ({
  id: String(e._id),
  project_id: e.projectId,
  key: e.key,
  name: e.name,
  template_id: e.templateId,
  track_opens: e.trackOpens,
  track_clicks: e.trackClicks,
  send_to_unsubscribed: e.sendToUnsubscribed,
  from_email: e.fromEmail,
  from_name: e.fromName,
  reply_to: e.replyTo,
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

const toCatalog = (e: EmailDoc): CatalogChange => ({
  type: 'catalog.email',
  kind: 'email',
  data: {
    id: String(e._id),
    clientId: e.clientId,
    revision: e.updatedAt.getTime(),
    projectId: e.projectId,
    key: e.key,
    name: e.name,
    templateId: e.templateId,
    trackOpens: e.trackOpens,
    trackClicks: e.trackClicks,
    sendToUnsubscribed: e.sendToUnsubscribed,
    fromEmail: e.fromEmail,
    fromName: e.fromName,
    replyTo: e.replyTo,
  },
});

/** Transactional emails of a client's projects, addressed by id or by their key. */
export class EmailRepository implements CatalogSource, EmailLookup {
  private readonly Email;
  /** Changes of one email one at a time (see KeyedSerializer). */
  private readonly perEmail = new KeyedSerializer();

  constructor(
    connection: Connection,
    private readonly catalog: CatalogListener,
  ) {
    this.Email = connection.model<EmailDoc>('TransactionalEmail', emailSchema);
  }

  async catalogSnapshot(): Promise<CatalogChange[]> {
    return (await this.Email.find().lean<EmailDoc[]>().exec()).map(toCatalog);
  }

  async init(): Promise<void> {
    await this.Email.init();
  }

  /** 'exists' when the project has an email with this key. */
  async create(clientId: string, projectId: string, body: CreateEmailRequest): Promise<TransactionalEmail | 'exists'> {
    try {
      const created = (await this.Email.create({ clientId, projectId, ...toDoc(body) })).toObject();
      await this.catalog.changed(toCatalog(created));
      return toTransactionalEmail(created);
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'exists';
      throw error;
    }
  }

  async list(clientId: string, projectId: string): Promise<TransactionalEmail[]> {
    return (await this.Email.find({ clientId, projectId }).sort({ createdAt: 1 }).lean<EmailDoc[]>().exec()).map(toTransactionalEmail);
  }

  async get(clientId: string, projectId: string, idOrKey: string): Promise<TransactionalEmail | null> {
    const filter = Types.ObjectId.isValid(idOrKey) && /^[a-f0-9]{24}$/.test(idOrKey) ? { _id: idOrKey } : { key: idOrKey };
    const doc = await this.Email.findOne({ ...filter, clientId, projectId })
      .lean<EmailDoc>()
      .exec();
    return doc ? toTransactionalEmail(doc) : null;
  }

  async update(clientId: string, projectId: string, id: string, body: UpdateEmailRequest): Promise<TransactionalEmail | null | 'exists'> {
    try {
      const doc = await this.perEmail.run(id, () =>
        this.Email.findOneAndUpdate({ _id: id, clientId, projectId }, { $set: toDoc(body) }, { returnDocument: 'after' })
          .lean<EmailDoc>()
          .exec(),
      );
      if (!doc) return null;
      await this.catalog.changed(toCatalog(doc));
      return toTransactionalEmail(doc);
    } catch (error) {
      if (isDuplicateKeyError(error)) return 'exists';
      throw error;
    }
  }

  async delete(clientId: string, projectId: string, id: string): Promise<boolean> {
    if ((await this.Email.deleteOne({ _id: id, clientId, projectId }).exec()).deletedCount !== 1) return false;
    await this.catalog.changed(deletion('email', id, clientId));
    return true;
  }
}
