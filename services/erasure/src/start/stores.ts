import { ErasureRepository } from '../model/erasure.repository';
import type { Infrastructure } from './infrastructure';
import type { Settings } from './settings';

/** The erasure service's repository, initialised (it closes with the database). */
export interface Stores {
  repository: ErasureRepository;
}

export async function openStores({ participants }: Settings, { db }: Infrastructure): Promise<Stores> {
  const repository = new ErasureRepository(db, participants);
  await repository.init();
  return { repository };
}
