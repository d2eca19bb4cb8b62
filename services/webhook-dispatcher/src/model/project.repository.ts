import { Schema, type Connection } from 'mongoose';
import type { ProjectOwner, ProjectOwnerLookup } from '../domain/ports';

interface ProjectDoc {
  _id: string;
  clientId: string;
  /** Kept after the project is deleted, so that its late events are skipped at once instead of awaited. */
  deleted?: boolean;
}

const projectSchema = new Schema<ProjectDoc>(
  { _id: String, clientId: String, deleted: { type: Boolean, default: undefined } },
  { collection: 'projects', versionKey: false },
);

/** Which client owns each project, from the catalog topic: events name a project, endpoints belong to a client. */
export class ProjectOwners implements ProjectOwnerLookup {
  private readonly Project;
  private readonly known = new Map<string, string>();
  private readonly deleted = new Set<string>();

  constructor(connection: Connection) {
    this.Project = connection.model<ProjectDoc>('Project', projectSchema);
  }

  async init(): Promise<void> {
    await this.Project.init();
  }

  async set(projectId: string, clientId: string): Promise<void> {
    await this.Project.replaceOne({ _id: projectId }, { clientId }, { upsert: true }).exec();
    this.known.set(projectId, clientId);
  }

  async remove(projectId: string): Promise<void> {
    await this.Project.replaceOne({ _id: projectId }, { clientId: '', deleted: true }, { upsert: true }).exec();
    this.known.delete(projectId);
    this.deleted.add(projectId);
  }

  /** A project's owner; projects never change owner and ids are never reused, so a known answer is kept. */
  async ownerOf(projectId: string): Promise<ProjectOwner> {
    const cached = this.known.get(projectId);
    if (cached) return { clientId: cached };
    if (this.deleted.has(projectId)) return 'deleted';
    const doc = await this.Project.findById(projectId).lean<ProjectDoc>().exec();
    if (!doc) return undefined;
    if (doc.deleted) {
      this.deleted.add(projectId);
      return 'deleted';
    }
    this.known.set(projectId, doc.clientId);
    return { clientId: doc.clientId };
  }
}
