<?php

declare(strict_types=1);

namespace Postbus\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Postbus\Exception\WebhookVerificationException;
use Postbus\Webhook;

/** Standard Webhooks verification against the vectors shared with the TypeScript SDK, and more. */
final class WebhookTest extends TestCase
{
    private const VECTORS = __DIR__ . '/../../../webhook-vectors.json';

    /** @return array<string, mixed> */
    private static function vectors(): array
    {
        return json_decode((string) file_get_contents(self::VECTORS), true, 512, JSON_THROW_ON_ERROR);
    }

    /** @return iterable<string, array{array<string, mixed>}> */
    public static function cases(): iterable
    {
        $vectors = self::vectors();
        foreach ($vectors['cases'] as $case) {
            yield $case['name'] => [$case];
        }
    }

    public function testTheVectorsFileHoldsValidAndInvalidCases(): void
    {
        $cases = self::vectors()['cases'];
        self::assertGreaterThanOrEqual(10, count($cases));
        self::assertContains(true, array_column($cases, 'valid'));
        self::assertContains(false, array_column($cases, 'valid'));
    }

    /**
     * @dataProvider cases
     * @param array<string, mixed> $case
     */
    public function testVector(array $case): void
    {
        $vectors = self::vectors();
        $body = $case['payload'] ?? $vectors['payload'];
        $call = static fn (): array => Webhook::verify($body, $case['headers'], $case['secrets'], $case['now'], $vectors['tolerance_seconds']);

        if ($case['valid']) {
            self::assertSame(json_decode($body, true), $call());
            return;
        }
        try {
            $call();
            self::fail('verified a webhook that must be refused');
        } catch (WebhookVerificationException $e) {
            self::assertSame($case['reason'], $e->getReason(), $e->getMessage());
        }
    }

    /** @return array{string, array<string, string>, string, int} body, headers, secret, now */
    private static function signed(): array
    {
        $secret = 'whsec_' . base64_encode('a-test-secret-of-some-length!!');
        $body = '{"type":"email.sent","data":{"message_id":"msg_1"}}';
        $now = 1_800_000_000;
        $id = 'msg_abc';
        $signature = base64_encode(hash_hmac('sha256', "$id.$now.$body", 'a-test-secret-of-some-length!!', true));
        return [$body, ['webhook-id' => $id, 'webhook-timestamp' => (string) $now, 'webhook-signature' => "v1,$signature"], $secret, $now];
    }

    public function testASingleSecretStringAndTheDefaultToleranceWork(): void
    {
        [$body, $headers, $secret, $now] = self::signed();

        self::assertSame('email.sent', Webhook::verify($body, $headers, $secret, $now + 299)['type']);
        $this->expectException(WebhookVerificationException::class);
        Webhook::verify($body, $headers, $secret, $now + 301);
    }

    public function testTheToleranceIsConfigurable(): void
    {
        [$body, $headers, $secret, $now] = self::signed();

        self::assertSame('email.sent', Webhook::verify($body, $headers, $secret, $now + 3000, 3600)['type']);
        try {
            Webhook::verify($body, $headers, $secret, $now + 11, 10);
            self::fail('accepted a timestamp outside the tolerance');
        } catch (WebhookVerificationException $e) {
            self::assertSame('timestamp', $e->getReason());
        }
    }

    public function testPsr7StyleHeaderArraysAreAccepted(): void
    {
        [$body, $headers, $secret, $now] = self::signed();
        $psr7 = array_map(static fn (string $v): array => [$v], $headers);

        self::assertSame('email.sent', Webhook::verify($body, $psr7, $secret, $now)['type']);
    }

    public function testASignedBodyThatIsNotJsonIsRefused(): void
    {
        $secret = 'whsec_' . base64_encode('k');
        $signature = base64_encode(hash_hmac('sha256', 'id.100.not json', 'k', true));

        try {
            Webhook::verify('not json', ['webhook-id' => 'id', 'webhook-timestamp' => '100', 'webhook-signature' => "v1,$signature"], $secret, 100);
            self::fail('accepted a body that is not JSON');
        } catch (WebhookVerificationException $e) {
            self::assertSame('payload', $e->getReason());
        }
    }

    public function testASecretThatIsNotBase64IsReportedAsSuch(): void
    {
        [$body, $headers, , $now] = self::signed();

        try {
            Webhook::verify($body, $headers, 'whsec_***not base64***', $now);
            self::fail('accepted an unusable secret');
        } catch (WebhookVerificationException $e) {
            self::assertSame('secret', $e->getReason());
        }
    }

    public function testASignatureWithoutTheV1SchemeIsNotAccepted(): void
    {
        [$body, $headers, $secret, $now] = self::signed();
        $headers['webhook-signature'] = 'v2' . substr($headers['webhook-signature'], 2);

        $this->expectException(WebhookVerificationException::class);
        Webhook::verify($body, $headers, $secret, $now);
    }
}
