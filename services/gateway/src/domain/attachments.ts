import { createHash } from 'node:crypto';
import { ATTACHMENT_LIMITS, EXECUTABLE_EXTENSIONS, type Attachment, type AttachmentRef } from '@postbus/contracts';
import { UnprocessableError, type FieldError } from '@postbus/errors';

/** An attachment checked and decoded: its bytes to store with the mailer, its reference for the trigger. */
export interface PreparedAttachment {
  ref: AttachmentRef;
  bytes: Buffer;
}

/** The media types of common file name extensions; one not here is application/octet-stream. */
const CONTENT_TYPES: Record<string, string> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  txt: 'text/plain',
  csv: 'text/csv',
  htm: 'text/html',
  html: 'text/html',
  ics: 'text/calendar',
  vcf: 'text/vcard',
  xml: 'application/xml',
  json: 'application/json',
  zip: 'application/zip',
  gz: 'application/gzip',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  rtf: 'application/rtf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
  eml: 'message/rfc822',
};

const extensionOf = (filename: string): string => {
  const dot = filename.lastIndexOf('.');
  return dot === -1 ? '' : filename.slice(dot + 1).toLowerCase();
};

/** The media type a file name's extension stands for. */
export const contentTypeOf = (filename: string): string => CONTENT_TYPES[extensionOf(filename)] ?? 'application/octet-stream';

const EXECUTABLE = new Set<string>(EXECUTABLE_EXTENSIONS);

/**
 * Whether a file name names a program or script: by its last extension, and by any inner one
 * followed only by spaces or dots (Windows drops trailing dots and spaces: `setup.exe.` runs).
 */
export const isExecutableName = (filename: string): boolean => EXECUTABLE.has(extensionOf(filename.replace(/[.\s]+$/, '')));

/** The first bytes of programs: Windows PE (MZ), ELF, Mach-O (both byte orders, 32 and 64 bit, universal) and scripts (#!). */
const PROGRAM_MAGIC: readonly Buffer[] = [
  Buffer.from('MZ'),
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]),
  Buffer.from([0xfe, 0xed, 0xfa, 0xce]),
  Buffer.from([0xfe, 0xed, 0xfa, 0xcf]),
  Buffer.from([0xce, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xcf, 0xfa, 0xed, 0xfe]),
  Buffer.from([0xca, 0xfe, 0xba, 0xbe]),
  Buffer.from('#!'),
];

/** Whether a file's content starts like a program, whatever its name says. */
export const isExecutableContent = (bytes: Buffer): boolean => PROGRAM_MAGIC.some((magic) => bytes.subarray(0, magic.length).equals(magic));

/** The number of bytes a valid base64 string decodes to, without decoding it. */
const decodedLength = (base64: string): number => (base64.length / 4) * 3 - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/**
 * Whether `text` was RFC 4648 base64 without line breaks, padded to a multiple of 4, given what
 * Buffer decoded from it. Buffer's decoder skips characters outside the alphabet and stops at the
 * first `=`, so any such character leaves fewer bytes than the length promises; it also takes the
 * URL-safe alphabet's - and _, which are looked for apart. All of it native and linear, where a
 * regular expression over a 10 MB string held the event loop for tens of milliseconds.
 */
const decodedAsBase64 = (text: string, bytes: Buffer): boolean =>
  text.length % 4 === 0 && bytes.length === decodedLength(text) && !text.includes('-') && !text.includes('_');

/**
 * Checks a send's attachments (the schema has checked their form and count) and decodes them:
 * base64 that is not, more than ATTACHMENT_LIMITS.totalBytes together, and programs (by name or
 * by content) are a 422 naming the field and the file. `pointer` locates the attachments in the body.
 */
export function prepareAttachments(attachments: Attachment[] | undefined, pointer = '/attachments'): PreparedAttachment[] {
  if (!attachments || attachments.length === 0) return [];
  const errors: FieldError[] = [];
  const notBase64 = (a: Attachment, i: number) =>
    errors.push({
      pointer: `${pointer}/${i}/content`,
      message: `the content of ${a.filename} is not base64 (RFC 4648, without line breaks)`,
    });
  // The sizes first, from the lengths alone: an oversized send is refused before anything is decoded.
  const total = attachments.reduce((sum, a) => sum + (a.content.length % 4 === 0 ? decodedLength(a.content) : 0), 0);
  if (total > ATTACHMENT_LIMITS.totalBytes)
    throw new UnprocessableError(
      'attachments-too-large',
      `The attachments hold ${total} bytes together; at most ${ATTACHMENT_LIMITS.totalBytes} (${ATTACHMENT_LIMITS.totalBytes / 1024 / 1024} MB) are allowed.`,
      [{ pointer, message: `at most ${ATTACHMENT_LIMITS.totalBytes} bytes together` }],
    );
  const prepared = attachments.map((a, i): PreparedAttachment => {
    let bytes = Buffer.from(a.content, 'base64');
    if (!decodedAsBase64(a.content, bytes)) {
      notBase64(a, i);
      bytes = Buffer.alloc(0);
    }
    if (isExecutableName(a.filename))
      errors.push({ pointer: `${pointer}/${i}/filename`, message: `${a.filename} is a program or script by its name; those are not sent` });
    else if (isExecutableContent(bytes))
      errors.push({
        pointer: `${pointer}/${i}/content`,
        message: `${a.filename} is a program or script by its content; those are not sent`,
      });
    return {
      bytes,
      ref: {
        filename: a.filename,
        contentType: a.content_type ?? contentTypeOf(a.filename),
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        ...(a.content_id !== undefined ? { contentId: a.content_id } : {}),
      },
    };
  });
  const contentIds = attachments.map((a) => a.content_id).filter((id) => id !== undefined);
  attachments.forEach((a, i) => {
    if (a.content_id !== undefined && contentIds.indexOf(a.content_id) !== contentIds.lastIndexOf(a.content_id))
      errors.push({
        pointer: `${pointer}/${i}/content_id`,
        message: `the content_id ${a.content_id} is given to more than one attachment`,
      });
  });
  if (errors.length > 0) {
    const named = errors.map((e) => e.message).join('; ');
    throw new UnprocessableError(
      'attachment-refused',
      `${errors.length === 1 ? 'An attachment is' : 'Attachments are'} refused: ${named}.`,
      errors,
    );
  }
  return prepared;
}
