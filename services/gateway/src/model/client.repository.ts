import { Schema, type Connection } from 'mongoose';
import type { KeyScope } from '../domain/credentials';

export interface ApiKeyDoc {
  keyId: string;
  /** Hex SHA-256 of the key; the key itself is never stored. */
  hash: string;
  scope: KeyScope;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface ClientDoc {
  clientId: string;
  name: string;
  keys: ApiKeyDoc[];
  createdAt: Date;
}

const clientSchema = new Schema<ClientDoc>(
  {
    clientId: { type: String, required: true },
    name: { type: String, required: true },
    keys: [
      new Schema<ApiKeyDoc>(
        {
          keyId: { type: String, required: true },
          hash: { type: String, required: true },
          scope: { type: String, enum: ['full', 'sdk'], required: true },
          createdAt: { type: Date, required: true },
          revokedAt: { type: Date, default: null },
        },
        { _id: false },
      ),
    ],
    createdAt: { type: Date, required: true },
  },
  { collection: 'clients', versionKey: false },
);
clientSchema.index({ clientId: 1 }, { unique: true });

/** Client accounts and their hashed API keys. */
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
