import { ATTACHMENT_LIMITS } from '@postbus/contracts';

/** The `_id` of one chunk of a message's attachment: message ids hold no colon, so ids never collide. */
export const chunkId = (messageId: string, position: number, chunk: number): string => `${messageId}:${position}:${chunk}`;

/** How many chunks hold `size` bytes: an empty file is one empty chunk, so that every stored attachment has a chunk 0. */
export const chunkCount = (size: number): number => Math.max(1, Math.ceil(size / ATTACHMENT_LIMITS.chunkBytes));
