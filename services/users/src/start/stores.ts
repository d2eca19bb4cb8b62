import { UserRepository } from '../model/user.repository';
import { userModels } from '../model/user.schema';
import type { Infrastructure } from './infrastructure';

/** The users service's store. */
export interface Stores {
  users: UserRepository;
}

/** Makes the store and readies its collections; it holds nothing to undo (the database's close is). */
export async function openStores({ db }: Infrastructure): Promise<Stores> {
  const users = new UserRepository(userModels(db));
  await users.init();
  return { users };
}
