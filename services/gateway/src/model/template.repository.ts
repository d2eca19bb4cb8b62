import { Schema, Types, type Connection } from 'mongoose';
import { KeyedSerializer } from '@postbus/db';
import type { TemplateEngine, TemplateParts } from '@postbus/templates';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource, type TemplateLookup } from '../domain/ports/catalog';

interface TemplateDoc {
  _id: Types.ObjectId;
  clientId: string;
  projectId: string;
  name: string;
  currentVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Every saved version of a template, append-only: old versions stay readable. */
interface VersionDoc {
  templateId: string;
  version: number;
  subject: string;
  html: string;
  text: string | null;
  /** Measured when saved (see TemplateEngine.measure); absent on versions saved before, null when not measurable. */
  cheap?: boolean | null;
  createdAt: Date;
}

export interface TemplateVersion extends TemplateParts {
  id: string;
  projectId: string;
  name: string;
  version: number;
  latestVersion: number;
  text: string | null;
  /** Whether it renders within the inline budget, as measured when it was saved; null when unknown. */
  cheap: boolean | null;
  createdAt: Date;
  updatedAt: Date;
}

const templateSchema = new Schema<TemplateDoc>(
  { clientId: String, projectId: String, name: String, currentVersion: Number, createdAt: Date, updatedAt: Date },
  { collection: 'templates', versionKey: false },
);
templateSchema.index({ clientId: 1, projectId: 1, createdAt: 1 });

const versionSchema = new Schema<VersionDoc>(
  {
    templateId: String,
    version: Number,
    subject: String,
    html: String,
    text: { type: String, default: null },
    cheap: { type: Boolean, default: null },
    createdAt: Date,
  },
  { collection: 'template_versions', versionKey: false },
);
versionSchema.index({ templateId: 1, version: 1 }, { unique: true });

export interface TemplateInput extends TemplateParts {
  name: string;
  /** As measured before saving; undefined when it could not be. */
  cheap?: boolean | undefined;
}

const toCatalog = (t: TemplateDoc, v: VersionDoc): CatalogChange => ({
  type: 'catalog.template',
  kind: 'template',
  data: {
    id: String(t._id),
    clientId: t.clientId,
    revision: t.updatedAt.getTime(),
    projectId: t.projectId,
    name: t.name,
    version: v.version,
    subject: v.subject,
    html: v.html,
    text: v.text,
    ...(typeof v.cheap === 'boolean' ? { cheap: v.cheap } : {}),
  },
});

/** Templates of a client's projects; a PUT appends a version. */
export class TemplateRepository implements CatalogSource, TemplateLookup {
  private readonly Template;
  private readonly Version;
  /** Saves of one template one at a time, so versions number without gaps or clashes. */
  private readonly perTemplate = new KeyedSerializer();

  /** `engine`: what measures templates before they are saved and renders their previews. */
  constructor(
    connection: Connection,
    private readonly catalog: CatalogListener,
    readonly engine: TemplateEngine,
  ) {
    this.Template = connection.model<TemplateDoc>('Template', templateSchema);
    this.Version = connection.model<VersionDoc>('TemplateVersion', versionSchema);
  }

  async init(): Promise<void> {
    await Promise.all([this.Template.init(), this.Version.init()]);
  }

  async catalogSnapshot(): Promise<CatalogChange[]> {
    const templates = await this.Template.find().lean<TemplateDoc[]>().exec();
    const latest = await Promise.all(templates.map((t) => this.version(String(t._id), t.currentVersion)));
    return templates.flatMap((t, i) => (latest[i] ? [toCatalog(t, latest[i])] : []));
  }

  async create(clientId: string, projectId: string, input: TemplateInput): Promise<TemplateVersion> {
    const now = new Date();
    const template = (
      await this.Template.create({ clientId, projectId, name: input.name, currentVersion: 1, createdAt: now, updatedAt: now })
    ).toObject();
    const version = (
      await this.Version.create({ templateId: String(template._id), version: 1, ...parts(input), createdAt: now })
    ).toObject();
    await this.catalog.changed(toCatalog(template, version));
    return toVersion(template, version);
  }

  async list(clientId: string, projectId: string): Promise<TemplateVersion[]> {
    const templates = await this.Template.find({ clientId, projectId }).sort({ createdAt: 1 }).lean<TemplateDoc[]>().exec();
    return Promise.all(templates.map(async (t) => toVersion(t, (await this.version(String(t._id), t.currentVersion))!)));
  }

  /** The current version, or the one asked for; null when the template (or that version) does not exist. */
  async get(clientId: string, projectId: string, id: string, version?: number): Promise<TemplateVersion | null> {
    const template = await this.template(clientId, projectId, id);
    if (!template) return null;
    const found = await this.version(id, version ?? template.currentVersion);
    return found ? toVersion(template, found) : null;
  }

  async saveVersion(clientId: string, projectId: string, id: string, input: TemplateInput): Promise<TemplateVersion | null> {
    return this.perTemplate.run(id, async () => {
      const template = await this.template(clientId, projectId, id);
      if (!template) return null;
      const now = new Date();
      const next = template.currentVersion + 1;
      const version = (await this.Version.create({ templateId: id, version: next, ...parts(input), createdAt: now })).toObject();
      const updated = await this.Template.findOneAndUpdate(
        { _id: id },
        { $set: { name: input.name, currentVersion: next, updatedAt: now } },
        { returnDocument: 'after' },
      )
        .lean<TemplateDoc>()
        .exec();
      await this.catalog.changed(toCatalog(updated ?? template, version));
      return toVersion(updated ?? template, version);
    });
  }

  async delete(clientId: string, projectId: string, id: string): Promise<boolean> {
    if (!(await this.template(clientId, projectId, id))) return false;
    await this.Template.deleteOne({ _id: id }).exec();
    await this.Version.deleteMany({ templateId: id }).exec();
    await this.catalog.changed(deletion('template', id, clientId));
    return true;
  }

  /** When each version was saved, newest first (at most `limit`); null when the template does not exist. */
  async versions(
    clientId: string,
    projectId: string,
    id: string,
    limit: number,
  ): Promise<Array<{ version: number; createdAt: Date }> | null> {
    const template = await this.template(clientId, projectId, id);
    if (!template) return null;
    const saved = await this.Version.find({ templateId: id }, { _id: 0, version: 1, createdAt: 1 })
      .sort({ version: -1 })
      .limit(limit)
      .lean<Array<{ version: number; createdAt: Date }>>()
      .exec();
    return saved.map(({ version, createdAt }) => ({ version, createdAt }));
  }

  private async template(clientId: string, projectId: string, id: string): Promise<TemplateDoc | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    return this.Template.findOne({ _id: id, clientId, projectId }).lean<TemplateDoc>().exec();
  }

  private version(templateId: string, version: number): Promise<VersionDoc | null> {
    return this.Version.findOne({ templateId, version }).lean<VersionDoc>().exec();
  }
}

const parts = (input: TemplateInput) => ({
  subject: input.subject,
  html: input.html,
  text: input.text ?? null,
  cheap: typeof input.cheap === 'boolean' ? input.cheap : null,
});

const toVersion = (t: TemplateDoc, v: VersionDoc): TemplateVersion => ({
  id: String(t._id),
  projectId: t.projectId,
  name: t.name,
  version: v.version,
  latestVersion: t.currentVersion,
  subject: v.subject,
  html: v.html,
  text: v.text,
  cheap: typeof v.cheap === 'boolean' ? v.cheap : null,
  createdAt: v.createdAt,
  updatedAt: t.updatedAt,
});
