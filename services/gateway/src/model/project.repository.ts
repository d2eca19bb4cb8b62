import { Schema, Types, type Connection } from 'mongoose';
import { mapFields } from './field-map';
import { KeyedSerializer } from '@postbus/db';
import type { CreateProjectRequest, Project, UpdateProjectRequest } from '@postbus/contracts';
import { deletion, type CatalogChange, type CatalogListener, type CatalogSource, type ProjectLookup } from '../domain/ports/catalog';

interface ProjectDoc {
  _id: Types.ObjectId;
  clientId: string;
  name: string;
  fromEmail: string | null;
  fromName: string | null;
  replyTo: string | null;
  senderDomainId: string | null;
  trackingDomainId: string | null;
  /** A content send's tracking when it does not say; stored projects from before have none (false). */
  trackOpens?: boolean;
  trackClicks?: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const projectSchema = new Schema<ProjectDoc>(
  {
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    fromEmail: { type: String, default: null },
    fromName: { type: String, default: null },
    replyTo: { type: String, default: null },
    senderDomainId: { type: String, default: null },
    trackingDomainId: { type: String, default: null },
    trackOpens: { type: Boolean, default: false },
    trackClicks: { type: Boolean, default: false },
  },
  { collection: 'projects', timestamps: true, versionKey: false },
);
projectSchema.index({ clientId: 1, createdAt: 1 });

const FIELD_OF = {
  name: 'name',
  from_email: 'fromEmail',
  from_name: 'fromName',
  reply_to: 'replyTo',
  sender_domain_id: 'senderDomainId',
  tracking_domain_id: 'trackingDomainId',
  track_opens: 'trackOpens',
  track_clicks: 'trackClicks',
} as const satisfies Record<keyof CreateProjectRequest, keyof ProjectDoc>;

const toDoc = (body: UpdateProjectRequest): Partial<ProjectDoc> => mapFields<UpdateProjectRequest, ProjectDoc>(body, FIELD_OF);

const toProject = (p: ProjectDoc): Project => ({
  id: String(p._id),
  name: p.name,
  from_email: p.fromEmail,
  from_name: p.fromName,
  reply_to: p.replyTo,
  sender_domain_id: p.senderDomainId,
  tracking_domain_id: p.trackingDomainId,
  track_opens: p.trackOpens === true,
  track_clicks: p.trackClicks === true,
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

const toCatalog = (p: ProjectDoc): CatalogChange => ({
  type: 'catalog.project',
  kind: 'project',
  data: {
    id: String(p._id),
    clientId: p.clientId,
    revision: p.updatedAt.getTime(),
    name: p.name,
    fromEmail: p.fromEmail,
    fromName: p.fromName,
    replyTo: p.replyTo,
    senderDomainId: p.senderDomainId,
    trackingDomainId: p.trackingDomainId,
  },
});

/** Projects, each owned by one client; another client's project reads as missing. */
export class ProjectRepository implements CatalogSource, ProjectLookup {
  private readonly Project;
  /** Changes of one project one at a time (see KeyedSerializer). */
  private readonly perProject = new KeyedSerializer();

  constructor(
    connection: Connection,
    private readonly catalog: CatalogListener,
  ) {
    this.Project = connection.model<ProjectDoc>('Project', projectSchema);
  }

  async catalogSnapshot(): Promise<CatalogChange[]> {
    return (await this.Project.find().lean<ProjectDoc[]>().exec()).map(toCatalog);
  }

  init(): Promise<void> {
    return this.Project.init().then(() => undefined);
  }

  async create(clientId: string, body: CreateProjectRequest): Promise<Project> {
    const doc = (await this.Project.create({ clientId, ...toDoc(body) })).toObject();
    await this.catalog.changed(toCatalog(doc));
    return toProject(doc);
  }

  async list(clientId: string, limit: number): Promise<Project[]> {
    const docs = await this.Project.find({ clientId }).sort({ createdAt: 1 }).limit(limit).lean<ProjectDoc[]>().exec();
    return docs.map(toProject);
  }

  async get(clientId: string, id: string): Promise<Project | null> {
    if (!Types.ObjectId.isValid(id)) return null;
    const doc = await this.Project.findOne({ _id: id, clientId }).lean<ProjectDoc>().exec();
    return doc ? toProject(doc) : null;
  }

  async update(clientId: string, id: string, body: UpdateProjectRequest): Promise<Project | null> {
    const doc = await this.perProject.run(id, () =>
      this.Project.findOneAndUpdate({ _id: id, clientId }, { $set: toDoc(body) }, { returnDocument: 'after' })
        .lean<ProjectDoc>()
        .exec(),
    );
    if (!doc) return null;
    await this.catalog.changed(toCatalog(doc));
    return toProject(doc);
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    const result = await this.Project.deleteOne({ _id: id, clientId }).exec();
    if (result.deletedCount !== 1) return false;
    await this.catalog.changed(deletion('project', id, clientId));
    return true;
  }
}
