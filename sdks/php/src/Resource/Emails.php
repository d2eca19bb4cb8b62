<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Attachment;
use Postbus\Internal\Requester;

/** Sending transactional emails: from a stored template (send), with their own content (sendContent), or many at once (sendBatch). */
final class Emails
{
    /** What one send may carry beyond its recipient and data, given among the call's options. */
    private const MESSAGE_OPTIONS = ['language', 'reply_to', 'cc', 'bcc', 'headers', 'tags', 'metadata', 'attachments', 'send_at'];

    /** The call's own options, which go in $options, never in a message. */
    private const CALL_OPTIONS = ['idempotency_key', 'timeout', 'max_retries'];

    /** @internal */
    public function __construct(private Requester $requester)
    {
    }

    /**
     * Sends (triggers) a transactional email to one user: POST /v1/projects/{projectId}/emails/{emailKey}/send.
     * An unknown email address registers the user. Asynchronous: the answer means durably queued.
     *
     * @param string               $emailKey the email's key (e.g. "welcome") or id
     * @param array<string, mixed> $user     email (required), user_id, name, country, language, gender, age,
     *                                       and custom attributes
     * @param array<string, mixed> $data     template data, {{data.*}}
     * @param array<string, mixed> $options  the template's language variant to send (language, a BCP 47 tag such
     *                                       as "de" or "pt-BR"; absent: the user's language), the message's
     *                                       own reply_to (an address), cc and bcc (lists of
     *                                       addresses; at most 50 addresses with the recipient), headers
     *                                       (name => value), tags (list of strings), metadata
     *                                       (string => string), attachments (list of
     *                                       Attachment::fromPath / ::fromBytes), send_at (a DateTimeInterface
     *                                       or RFC 3339 string, from now up to 30 days ahead: the message is
     *                                       scheduled, and messages->cancel() stops it until then); and the
     *                                       call's idempotency_key, timeout, max_retries
     * @return array{status: string, request_id: string, message_id: string}&array<string, mixed> send_at too
     *                                                                                             when scheduled
     */
    public function send(string $projectId, string $emailKey, array $user, array $data = [], array $options = []): array
    {
        $body = ['user' => Json::object($user)];
        if ($data !== []) {
            $body['data'] = $data;
        }
        foreach (self::MESSAGE_OPTIONS as $name) {
            if (array_key_exists($name, $options)) {
                $body[$name] = self::messageOption($name, $options[$name]);
                unset($options[$name]);
            }
        }
        $path = ['projects', $projectId, 'emails', $emailKey, 'send'];
        return $this->requester->request('POST', $path, [], $body, $options);
    }

    /**
     * Sends an email with its own content, no stored template: POST /v1/projects/{projectId}/emails/send.
     * The subject, HTML and text are sent as they are. Asynchronous: the answer means durably queued.
     *
     *     $postbus->emails->sendContent($projectId, [
     *         'from' => 'Acme Billing <billing@acme.example>',
     *         'to' => 'ada@example.com',
     *         'subject' => 'Your receipt',
     *         'html' => '<p>Thanks for your order.</p>',
     *         'text' => 'Thanks for your order.',
     *     ]);
     *
     * @param array<string, mixed> $message to (an address, or a list whose first address is the recipient and
     *                                      whose others are copies shown in the To header), subject, and
     *                                      html and/or text; optionally from ("Name <address>" or an address
     *                                      on the project's verified sender domain, else a
     *                                      ValidationException (422) naming from and the domain; by default
     *                                      the project's sender), user (email, which must be the recipient's,
     *                                      user_id, name, … and custom attributes: registers or updates the
     *                                      user; without it nobody is registered), reply_to (an address), cc
     *                                      and bcc (lists of addresses; at most 50 addresses across to, cc
     *                                      and bcc), headers (name => value), tags (list of strings),
     *                                      metadata (string => string), attachments (list of
     *                                      Attachment::fromPath / ::fromBytes), send_at (a
     *                                      DateTimeInterface or RFC 3339 string, from now up to 30 days
     *                                      ahead: the message is scheduled, and messages->cancel() stops it
     *                                      until then), track_opens and track_clicks (booleans; by default
     *                                      the project's)
     * @param array<string, mixed> $options idempotency_key, timeout, max_retries
     * @return array{status: string, request_id: string, message_id: string}&array<string, mixed> send_at too
     *                                                                                             when scheduled
     * @throws \InvalidArgumentException when $message holds a call option (those go in $options); nothing is sent
     */
    public function sendContent(string $projectId, array $message, array $options = []): array
    {
        $misplaced = array_intersect(array_keys($message), self::CALL_OPTIONS);
        if ($misplaced !== []) {
            // They would reach the API as unknown fields of the message; the caller meant them for this call.
            throw new \InvalidArgumentException('Call options go in $options, not in the message: ' . implode(', ', $misplaced));
        }
        return $this->requester->request('POST', ['projects', $projectId, 'emails', 'send'], [], self::message($message), $options);
    }

    /**
     * Sends up to 500 emails in one call: POST /v1/projects/{projectId}/emails/batch. Each message is
     * accepted or rejected on its own; one idempotency key covers the whole batch.
     *
     * @param list<array<string, mixed>> $messages each a template send: email_key, user, and optionally data,
     *                                             language, reply_to, cc, bcc, headers, tags, metadata, attachments
     *                                             (list of Attachment), send_at; or, without email_key, a
     *                                             content send as sendContent() takes it: to, subject, html
     *                                             and/or text, and optionally from, user, … track_clicks
     * @param array<string, mixed>       $options  idempotency_key, timeout, max_retries
     * @return array{request_id: string, data: list<array<string, mixed>>} one result per message, in order:
     *                                                                     index, status ("accepted" with message_id,
     *                                                                     or "rejected" with error)
     */
    public function sendBatch(string $projectId, array $messages, array $options = []): array
    {
        $items = array_map(static fn (array $message): array => self::message($message), array_values($messages));
        return $this->requester->request('POST', ['projects', $projectId, 'emails', 'batch'], [], ['messages' => $items], $options);
    }

    /**
     * A whole message (a content send or a batch item) as the API takes it: its objects kept JSON objects
     * (even empty), lists kept lists, attachments in base64, send_at as RFC 3339.
     *
     * @param array<string, mixed> $message
     * @return array<string, mixed>
     */
    private static function message(array $message): array
    {
        foreach (['user', 'data', 'headers', 'metadata'] as $name) {
            if (array_key_exists($name, $message) && is_array($message[$name])) {
                $message[$name] = Json::object($message[$name]);
            }
        }
        foreach (['to', 'cc', 'bcc', 'tags'] as $name) {
            if (array_key_exists($name, $message) && is_array($message[$name])) {
                $message[$name] = array_values($message[$name]);
            }
        }
        if (array_key_exists('attachments', $message) && is_array($message['attachments'])) {
            $message['attachments'] = Attachment::listToArray($message['attachments']);
        }
        if (array_key_exists('send_at', $message)) {
            $message['send_at'] = self::messageOption('send_at', $message['send_at']);
        }
        return $message;
    }

    /** A message option as the API takes it: headers and metadata as JSON objects (even empty), attachments in base64, send_at as RFC 3339. */
    private static function messageOption(string $name, mixed $value): mixed
    {
        if ($name === 'send_at' && $value instanceof \DateTimeInterface) {
            return $value->format(\DateTimeInterface::RFC3339_EXTENDED);
        }
        return match ($name) {
            'headers', 'metadata' => Json::object($value),
            'attachments' => Attachment::listToArray($value),
            default => $value,
        };
    }
}
