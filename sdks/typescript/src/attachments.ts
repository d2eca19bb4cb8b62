/**
 * A file to send with a message: `content` as bytes (a Uint8Array or Buffer) or as a base64
 * string. A `content_id` makes it an inline part the HTML shows as `cid:<content_id>`. At most 20
 * files and 10 MB together; programs and scripts are refused.
 */
export interface AttachmentInput {
  filename: string;
  content: Uint8Array | string;
  /** By default the type the file name's extension stands for. */
  content_type?: string;
  content_id?: string;
}

/** An attachment as the API takes it: the content in base64. */
export interface AttachmentBody {
  filename: string;
  content: string;
  content_type?: string;
  content_id?: string;
}

const toBase64 = (bytes: Uint8Array): string => {
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
};

/** An attachment with its content in base64, as the API takes it (a string is taken to be base64 already). */
export const attachmentBody = (a: AttachmentInput): AttachmentBody => ({
  ...a,
  content: typeof a.content === 'string' ? a.content : toBase64(a.content),
});

/**
 * An attachment read from a file (Node.js): named by the file's base name unless `options` names
 * it. `node:fs` is loaded only when called, so that the SDK still bundles for other runtimes.
 */
export async function attachmentFromFile(
  path: string,
  options: Partial<Pick<AttachmentInput, 'filename' | 'content_type' | 'content_id'>> = {},
): Promise<AttachmentInput> {
  const { readFile } = await import('node:fs/promises');
  const content = new Uint8Array(await readFile(path));
  const filename = options.filename ?? path.split(/[\\/]/).pop() ?? path;
  return { ...options, filename, content };
}
