import { createHash } from 'node:crypto';
import { ATTACHMENT_LIMITS } from '@postbus/contracts';
import { UnprocessableError } from '@postbus/errors';
import { contentTypeOf, isExecutableContent, isExecutableName, prepareAttachments } from './attachments';

const b64 = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64');

/** The problem prepareAttachments throws, or fails the test. */
function refusal(run: () => unknown): UnprocessableError {
  try {
    run();
  } catch (error) {
    if (error instanceof UnprocessableError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('prepareAttachments', () => {
  it('decodes each file and describes it for the trigger: type from the extension unless given, size and SHA-256 of the bytes', () => {
    const pdf = Buffer.from('%PDF-1.4\nhello');
    const [a, b] = prepareAttachments([
      { filename: 'Invoice.PDF', content: b64(pdf) },
      { filename: 'logo', content: b64('png bytes'), content_type: 'image/png', content_id: 'logo' },
    ]);
    expect(a!.bytes.equals(pdf)).toBe(true);
    expect(a!.ref).toEqual({
      filename: 'Invoice.PDF',
      contentType: 'application/pdf',
      size: pdf.length,
      sha256: createHash('sha256').update(pdf).digest('hex'),
    });
    expect(b!.ref).toMatchObject({ contentType: 'image/png', contentId: 'logo', size: 9 });
    expect(prepareAttachments(undefined)).toEqual([]);
  });

  it('refuses content that is not base64, naming the field', () => {
    const problem = refusal(() =>
      prepareAttachments([
        { filename: 'ok.txt', content: b64('fine') },
        { filename: 'bad.txt', content: 'not base64!' },
        { filename: 'wrapped.txt', content: 'aGVs\nbG8=' },
        { filename: 'url-safe.txt', content: 'aGV-bG8_' },
        { filename: 'inner-padding.txt', content: 'aA==aGVs' },
        { filename: 'unpadded.txt', content: 'aGVsbG8' },
        { filename: 'space.txt', content: 'aGVs bG8' },
        { filename: 'padding-only.txt', content: 'A===' },
        { filename: 'not-ascii.txt', content: 'aGVsbG\u00e9=' },
      ]),
    ).toProblem();
    expect(problem.status).toBe(422);
    expect(problem.errors?.map((e) => e.pointer)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `/attachments/${i}/content`));
  });

  it('refuses more than 10 MB together, naming /attachments, before decoding anything', () => {
    // base64 of n × 3 bytes is n × 4 characters.
    const base64Of = (bytes: number) => 'A'.repeat((bytes / 3) * 4);
    const half = base64Of(Math.ceil(ATTACHMENT_LIMITS.totalBytes / 2 / 3) * 3); // a few bytes over half
    const problem = refusal(() =>
      prepareAttachments([
        { filename: 'a.dat', content: half },
        { filename: 'b.dat', content: half },
      ]),
    ).toProblem();
    expect(problem).toMatchObject({ status: 422, errors: [{ pointer: '/attachments' }] });
    // Up to the limit passes.
    const atLimit = base64Of(ATTACHMENT_LIMITS.totalBytes - (ATTACHMENT_LIMITS.totalBytes % 3));
    expect(prepareAttachments([{ filename: 'c.dat', content: atLimit }])[0]!.ref.size).toBe(ATTACHMENT_LIMITS.totalBytes - 1);
  });

  it('refuses programs by name and by content, naming the file and its field', () => {
    const problem = refusal(() =>
      prepareAttachments([
        { filename: 'setup.exe', content: b64('harmless text') },
        { filename: 'invoice.pdf', content: b64(Buffer.from([0x4d, 0x5a, 0x90, 0x00])) },
        { filename: 'notes.txt', content: b64('#!/bin/sh\nrm -rf /') },
        { filename: 'fine.txt', content: b64('just text') },
      ]),
    ).toProblem();
    expect(problem.errors).toEqual([
      { pointer: '/attachments/0/filename', message: expect.stringContaining('setup.exe') },
      { pointer: '/attachments/1/content', message: expect.stringContaining('invoice.pdf') },
      { pointer: '/attachments/2/content', message: expect.stringContaining('notes.txt') },
    ]);
    expect(problem.detail).toContain('setup.exe');
  });

  it('refuses a content_id given twice', () => {
    const problem = refusal(() =>
      prepareAttachments([
        { filename: 'a.png', content: b64('a'), content_id: 'logo' },
        { filename: 'b.png', content: b64('b'), content_id: 'logo' },
      ]),
    ).toProblem();
    expect(problem.errors?.map((e) => e.pointer)).toEqual(['/attachments/0/content_id', '/attachments/1/content_id']);
  });
});

describe('executables', () => {
  it.each([
    'setup.exe',
    'SETUP.EXE',
    'run.bat',
    'x.cmd',
    'x.scr',
    'x.msi',
    'x.js',
    'x.vbs',
    'x.jar',
    'x.ps1',
    'x.sh',
    'x.app',
    'x.dll',
    'invoice.pdf.exe',
    'setup.exe.',
    'setup.exe  ',
  ])('names %s a program', (name) => expect(isExecutableName(name)).toBe(true));

  it.each(['invoice.pdf', 'exe', 'photo.jpeg', 'archive.tar.gz', 'readme', 'shell.txt'])('does not name %s a program', (name) =>
    expect(isExecutableName(name)).toBe(false),
  );

  it('knows programs by their first bytes: PE, ELF, Mach-O and scripts', () => {
    for (const magic of [
      [0x4d, 0x5a],
      [0x7f, 0x45, 0x4c, 0x46],
      [0xcf, 0xfa, 0xed, 0xfe],
      [0xfe, 0xed, 0xfa, 0xce],
      [0xca, 0xfe, 0xba, 0xbe],
      [0x23, 0x21],
    ])
      expect(isExecutableContent(Buffer.from([...magic, 0, 0, 0]))).toBe(true);
    expect(isExecutableContent(Buffer.from('%PDF-1.7'))).toBe(false);
    expect(isExecutableContent(Buffer.from('M'))).toBe(false);
    expect(isExecutableContent(Buffer.alloc(0))).toBe(false);
  });

  it('types files by extension, octet-stream when unknown', () => {
    expect(contentTypeOf('a.PNG')).toBe('image/png');
    expect(contentTypeOf('report.docx')).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    expect(contentTypeOf('data.weird')).toBe('application/octet-stream');
    expect(contentTypeOf('noext')).toBe('application/octet-stream');
  });
});
