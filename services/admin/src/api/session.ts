import { api, ApiError } from './client';
import type { AdminSession } from './types';

/** HTTP Basic credentials, UTF-8 safe (btoa alone takes Latin-1 only). */
export function basicAuthorization(clientId: string, apiKey: string): string {
  const bytes = new TextEncoder().encode(`${clientId}:${apiKey}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

/** Opens a cookie session with the client id and API key; the key itself is never stored by the panel. */
export async function signIn(clientId: string, apiKey: string): Promise<void> {
  await api('/auth/session/cookie', { method: 'POST', headers: { Authorization: basicAuthorization(clientId.trim(), apiKey.trim()) } });
}

export const signOut = (): Promise<void> => api('/auth/session', { method: 'DELETE' });

export const currentSession = (): Promise<AdminSession> => api<AdminSession>('/auth/session', { reportSessionEnd: false });

/** What the sign-in form says when the credentials were not accepted. */
export function signInErrorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return 'The client ID or API key is not correct. Check both and try again.';
    if (error.status === 403) return 'This API key may not open an admin session: sign in with a key of scope "full".';
    if (error.status === 429) return 'Too many attempts. Wait a minute, then try again.';
    if (error.status === 0) return error.message;
  }
  return `Signing in failed: ${error instanceof Error ? error.message : 'unknown error'}`;
}
