import { AssignerProtocol, type Admin } from 'kafkajs';

/** How far a consumer group is behind, per partition and in all. */
export interface GroupLag {
  groupId: string;
  /** Messages published and not yet committed by the group, over all its partitions. */
  total: number;
  partitions: Array<{ topic: string; partition: number; committed: number; end: number; lag: number }>;
}

/**
 * The lag of a consumer group read from the broker: each partition's end offset minus the group's
 * committed offset, over the topics its members subscribe to and `topics` (or, with neither, those
 * it has committed on: a group whose members are all gone can lag on a topic it never committed
 * on, which only `topics` names). A partition the group has committed nothing on yet lags by all
 * it holds: Postbus's groups read from the beginning.
 */
export async function consumerGroupLag(admin: Admin, groupId: string, topics: string[] = []): Promise<GroupLag> {
  const [group] = (await admin.describeGroups([groupId])).groups;
  const subscribed = new Set([
    ...topics,
    ...(group?.members.flatMap((m) => AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.topics ?? []) ?? []),
  ]);
  const committed = await admin.fetchOffsets({ groupId, ...(subscribed.size > 0 ? { topics: [...subscribed] } : {}) });
  const partitions: GroupLag['partitions'] = [];
  for (const { topic, partitions: offsets } of committed) {
    const ends = await admin.fetchTopicOffsets(topic);
    for (const { partition, offset } of offsets) {
      const ofPartition = ends.find((e) => e.partition === partition);
      const end = Number(ofPartition?.high ?? 0);
      const at = Number(offset);
      const from = at >= 0 ? at : Number(ofPartition?.low ?? 0);
      partitions.push({ topic, partition, committed: at, end, lag: Math.max(0, end - from) });
    }
  }
  return { groupId, total: partitions.reduce((sum, p) => sum + p.lag, 0), partitions };
}

/**
 * Whether the group has committed every message published to the topics before `time` (by the
 * messages' timestamps, which the producer sets when it sends). A partition the group has
 * committed nothing on counts from its first message.
 */
export async function consumerGroupHasPassed(admin: Admin, groupId: string, topics: string[], time: Date): Promise<boolean> {
  const committed = await admin.fetchOffsets({ groupId, topics });
  for (const topic of topics) {
    const [atTime, ends] = await Promise.all([admin.fetchTopicOffsetsByTimestamp(topic, time.getTime()), admin.fetchTopicOffsets(topic)]);
    const offsets = committed.find((c) => c.topic === topic)?.partitions ?? [];
    for (const { partition, offset } of atTime) {
      const at = Number(offsets.find((p) => p.partition === partition)?.offset ?? -1);
      const from = at >= 0 ? at : Number(ends.find((e) => e.partition === partition)?.low ?? 0);
      if (from < Number(offset)) return false;
    }
  }
  return true;
}
