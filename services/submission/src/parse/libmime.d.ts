/** The part of libmime (mailparser's MIME header codec) that reading custom headers uses; it ships no types. */
declare module 'libmime' {
  const libmime: {
    /** Decodes the RFC 2047 encoded-words of a header value (`=?UTF-8?Q?…?=`) into text. */
    decodeWords(value: string): string;
  };
  export default libmime;
}
