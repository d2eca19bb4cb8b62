import { Schema, type Connection } from 'mongoose';

interface ProjectDoc {
  _id: string;
  clientId: string;
}

const projectSchema = new Schema<ProjectDoc>({ _id: String, clientId: String }, { collection: 'projects', versionKey: false });

/** Which client owns each project, from the catalog topic: events name a project, endpoints belong to a client. */
export class ProjectOwners {
  private readonly Project;
  private readonly known = new Map<string, string>();

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
    await this.Project.deleteOne({ _id: projectId }).exec();
    this.known.delete(projectId);
  }

  /** A project's client; projects never change owner, so a known answer is kept. */
  async clientOf(projectId: string): Promise<string | undefined> {
    const cached = this.known.get(projectId);
    if (cached) return cached;
    const doc = await this.Project.findById(projectId).lean<ProjectDoc>().exec();
    if (doc) this.known.set(projectId, doc.clientId);
    return doc?.clientId;
  }
}
