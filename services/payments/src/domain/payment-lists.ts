/** A user's payments (by the users service's id), in the order they were recorded. */
export const userList = (projectId: string, uid: string): string => `${projectId}:user:${uid}`;

/** The payments one erasure anonymised (listed under the pseudonym's email). */
export const erasedList = (projectId: string, erasureId: string): string => `${projectId}:erased:${erasureId}`;
