import type { Message } from '../api/types';

/** What a message was sent as: the email its template send named, or a content send (its app's own subject and bodies). */
export const sentAs = (message: Pick<Message, 'email_key'>): string => message.email_key ?? 'content';

/**
 * How a message came, beside what it was sent as: `welcome · API`, `content · SMTP`, and the
 * template's language it was rendered in when not its default (`welcome · de · API`). A support
 * person asked about a mail from an app's framework, or in a user's language, finds it by this.
 */
export function MessageSource({ message }: { message: Pick<Message, 'email_key' | 'source' | 'template' | 'language'> }) {
  const via = message.source === 'smtp' ? 'SMTP' : 'API';
  const how = message.source === 'smtp' ? 'Sent over SMTP' : 'Sent through the API';
  const title = message.template ? `${how} from template version ${message.template.version}` : `${how} with its own content (no template)`;
  return (
    <span title={title}>
      <span className="font-mono">{sentAs(message)}</span>
      {message.language && (
        <>
          {' · '}
          <span title={`Rendered in the template's ${message.language} variant`}>{message.language}</span>
        </>
      )}{' '}
      · {via}
    </span>
  );
}
