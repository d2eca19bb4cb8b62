<?php

declare(strict_types=1);

namespace Postbus;

/**
 * A file to send with a message (the "attachments" option of Emails::send, of a content send's
 * message in Emails::sendContent, and of a batch's messages). With a content id it is an inline part the HTML shows as cid:<content id>. At most 20
 * files and 10 MB together; programs and scripts are refused (422 naming the file).
 */
final class Attachment
{
    private function __construct(
        public readonly string $filename,
        public readonly string $bytes,
        public readonly ?string $contentType,
        public readonly ?string $contentId,
    ) {
    }

    /**
     * A file read from disk, named by its base name unless $filename names it; its type is the one its
     * extension stands for unless $contentType says.
     *
     * @throws \InvalidArgumentException when the file cannot be read
     */
    public static function fromPath(string $path, ?string $filename = null, ?string $contentType = null, ?string $contentId = null): self
    {
        $bytes = is_file($path) && is_readable($path) ? file_get_contents($path) : false;
        if ($bytes === false) {
            throw new \InvalidArgumentException("Cannot read the attachment {$path}.");
        }
        return new self($filename ?? basename($path), $bytes, $contentType, $contentId);
    }

    /** A file from bytes in memory (a binary string). */
    public static function fromBytes(string $bytes, string $filename, ?string $contentType = null, ?string $contentId = null): self
    {
        return new self($filename, $bytes, $contentType, $contentId);
    }

    /**
     * As the API takes it: the content in base64.
     *
     * @return array{filename: string, content: string, content_type?: string, content_id?: string}
     */
    public function toArray(): array
    {
        $body = ['filename' => $this->filename, 'content' => base64_encode($this->bytes)];
        if ($this->contentType !== null) {
            $body['content_type'] = $this->contentType;
        }
        if ($this->contentId !== null) {
            $body['content_id'] = $this->contentId;
        }
        return $body;
    }

    /**
     * Attachments as the API takes them: Attachment objects, or arrays already in the API's shape (base64 content).
     *
     * @param list<Attachment|array<string, mixed>> $attachments
     * @return list<array<string, mixed>>
     * @internal
     */
    public static function listToArray(array $attachments): array
    {
        return array_map(static fn ($a) => $a instanceof self ? $a->toArray() : $a, array_values($attachments));
    }
}
