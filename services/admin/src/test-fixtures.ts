import type { Message } from './api/types';

/** The project the panel's tests look at. */
export const PROJECT = '0123456789abcdef01234567';

/**
 * A message of PROJECT as the gateway lists it: the `welcome` email (its template's default language)
 * to no user id, nothing opened or clicked, no tags or metadata; `fields` name the rest (and replace any of these).
 */
export const testMessage = (
  fields: Pick<Message, 'id' | 'email' | 'status' | 'subject' | 'created_at' | 'updated_at' | 'timeline'> & Partial<Message>,
): Message => ({
  project_id: PROJECT,
  email_key: 'welcome',
  source: 'api',
  template: { id: 'tpl_1', version: 1 },
  language: null,
  user_id: null,
  opened: false,
  clicked: false,
  opens: 0,
  clicks: 0,
  tags: [],
  metadata: {},
  attachments: [],
  test: false,
  accepted_at: fields.created_at,
  ...fields,
});
