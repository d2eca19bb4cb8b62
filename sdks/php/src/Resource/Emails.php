<?php

declare(strict_types=1);

namespace Postbus\Resource;

use Postbus\Attachment;
use Postbus\Internal\Requester;

/** Sending transactional emails. */
final class Emails
{
    /** What one send may carry beyond its recipient and data, given among the call's options. */
    private const MESSAGE_OPTIONS = ['reply_to', 'cc', 'bcc', 'headers', 'tags', 'metadata', 'attachments', 'send_at'];

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
     * @param array<string, mixed> $options  the message's own reply_to, cc and bcc (lists of addresses, at most
     *                                       20 together), headers (name => value), tags (list of
     *                                       strings), metadata (string => string), attachments (list of
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
     * Sends up to 500 emails in one call: POST /v1/projects/{projectId}/emails/batch. Each message is
     * accepted or rejected on its own; one idempotency key covers the whole batch.
     *
     * @param list<array<string, mixed>> $messages each: email_key, user, and optionally data, reply_to, cc, bcc,
     *                                             headers, tags, metadata, attachments (list of Attachment), send_at
     * @param array<string, mixed>       $options  idempotency_key, timeout, max_retries
     * @return array{request_id: string, data: list<array<string, mixed>>} one result per message, in order:
     *                                                                     index, status ("accepted" with message_id,
     *                                                                     or "rejected" with error)
     */
    public function sendBatch(string $projectId, array $messages, array $options = []): array
    {
        $items = array_map(static function (array $message): array {
            foreach (['user', 'data', 'headers', 'metadata'] as $name) {
                if (array_key_exists($name, $message) && is_array($message[$name])) {
                    $message[$name] = Json::object($message[$name]);
                }
            }
            if (array_key_exists('attachments', $message) && is_array($message['attachments'])) {
                $message['attachments'] = Attachment::listToArray($message['attachments']);
            }
            if (array_key_exists('send_at', $message)) {
                $message['send_at'] = self::messageOption('send_at', $message['send_at']);
            }
            return $message;
        }, array_values($messages));
        return $this->requester->request('POST', ['projects', $projectId, 'emails', 'batch'], [], ['messages' => $items], $options);
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
