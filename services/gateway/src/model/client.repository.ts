import { Schema, type Connection } from 'mongoose';

export interface ClientDoc {
  clientId: string;
  name: string;
  createdAt: Date;
}

const clientSchema = new Schema<ClientDoc>(
  {
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'clients', versionKey: false },
);
clientSchema.index({ clientId: 1 }, { unique: true });

/** Client accounts; their API keys are in ApiKeyRepository. */
export class ClientRepository {
  private readonly Client;

  constructor(connection: Connection) {
    this.Client = connection.model<ClientDoc>('Client', clientSchema);
  }

  init(): Promise<void> {
    return this.Client.init().then(() => undefined);
  }

  async create(client: ClientDoc): Promise<void> {
    await this.Client.create(client);
  }

  findByClientId(clientId: string): Promise<ClientDoc | null> {
    return this.Client.findOne({ clientId }).lean<ClientDoc>().exec();
  }
}
