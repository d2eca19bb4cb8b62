<?php

declare(strict_types=1);

namespace Postbus;

use Postbus\Exception\WebhookVerificationException;

/**
 * Verifies the webhooks Postbus sends (Standard Webhooks: webhook-id, webhook-timestamp and
 * webhook-signature headers, HMAC-SHA256 over "{id}.{timestamp}.{body}").
 */
final class Webhook
{
    /**
     * Verifies a webhook request and returns its decoded JSON payload.
     *
     * @param string                             $rawBody          the body exactly as received (php://input),
     *                                                              never re-encoded JSON
     * @param array<string, string|list<string>> $headers          the request headers in any case, or $_SERVER
     *                                                              (HTTP_WEBHOOK_ID, …)
     * @param string|list<string>                $secretOrSecrets  whsec_… secret(s); several during a rotation
     * @param int|null                           $now              unix time, default time()
     * @param int                                $toleranceSeconds how far the timestamp may be from now, either way
     * @return array<mixed> the payload: type, timestamp, data
     * @throws WebhookVerificationException when the request must not be trusted
     */
    public static function verify(
        string $rawBody,
        array $headers,
        string|array $secretOrSecrets,
        ?int $now = null,
        int $toleranceSeconds = 300,
    ): array {
        $normalised = self::normaliseHeaders($headers);
        $id = $normalised['webhook-id'] ?? null;
        $timestamp = $normalised['webhook-timestamp'] ?? null;
        $signatures = $normalised['webhook-signature'] ?? null;
        if ($id === null || $timestamp === null || $signatures === null) {
            throw new WebhookVerificationException(
                'The webhook-id, webhook-timestamp and webhook-signature headers are required.',
                'headers',
            );
        }

        $timestamp = trim($timestamp);
        if (preg_match('/^\d{1,15}$/', $timestamp) !== 1) {
            throw new WebhookVerificationException('The webhook-timestamp header is not a unix time.', 'timestamp');
        }
        $now ??= time();
        // Both ways: an old timestamp is a replay, one far ahead means it cannot be checked either.
        if (abs($now - (int) $timestamp) > $toleranceSeconds) {
            throw new WebhookVerificationException(
                'The webhook-timestamp is outside the tolerance: a replayed or delayed request, or a wrong clock.',
                'timestamp',
            );
        }

        $signed = $id . '.' . $timestamp . '.' . $rawBody;
        $expected = [];
        foreach (is_array($secretOrSecrets) ? $secretOrSecrets : [$secretOrSecrets] as $secret) {
            $expected[] = base64_encode(hash_hmac('sha256', $signed, self::key($secret), true));
        }
        if ($expected === []) {
            throw new WebhookVerificationException('No webhook secret was given.', 'secret');
        }

        $matched = false;
        foreach (preg_split('/\s+/', trim($signatures)) ?: [] as $entry) {
            $comma = strpos($entry, ',');
            if ($comma === false || substr($entry, 0, $comma) !== 'v1') {
                continue; // another scheme (or version) is not ours to judge
            }
            $signature = substr($entry, $comma + 1);
            foreach ($expected as $candidate) {
                // Every candidate is compared, in constant time, so timing tells nothing.
                $matched = hash_equals($candidate, $signature) || $matched;
            }
        }
        if (!$matched) {
            throw new WebhookVerificationException('No webhook signature matches the secret(s).', 'signature');
        }

        try {
            $payload = json_decode($rawBody, true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException) {
            throw new WebhookVerificationException('The webhook body is not JSON.', 'payload');
        }
        if (!is_array($payload)) {
            throw new WebhookVerificationException('The webhook body is not a JSON object.', 'payload');
        }
        return $payload;
    }

    /**
     * Lower-case names with dashes; $_SERVER's HTTP_WEBHOOK_ID becomes webhook-id.
     *
     * @param array<mixed> $headers
     * @return array<string, string>
     */
    private static function normaliseHeaders(array $headers): array
    {
        $normalised = [];
        foreach ($headers as $name => $value) {
            if (!is_string($name)) {
                continue;
            }
            $name = str_replace('_', '-', strtolower($name));
            if (str_starts_with($name, 'http-')) {
                $name = substr($name, 5);
            }
            if (is_array($value)) {
                // PSR-7 style: every value of a repeated header.
                $value = implode(' ', array_filter($value, 'is_string'));
            }
            if (is_string($value)) {
                $normalised[$name] = isset($normalised[$name]) && $name === 'webhook-signature'
                    ? $normalised[$name] . ' ' . $value
                    : $value;
            }
        }
        return $normalised;
    }

    private static function key(mixed $secret): string
    {
        if (!is_string($secret)) {
            throw new WebhookVerificationException('A webhook secret must be a string.', 'secret');
        }
        $encoded = str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret;
        $key = base64_decode($encoded, true);
        if ($key === false || $key === '') {
            throw new WebhookVerificationException(
                'A webhook secret must be whsec_ followed by base64, as Postbus shows it.',
                'secret',
            );
        }
        return $key;
    }
}
