<?php

declare(strict_types=1);

namespace Postbus\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Postbus\Exception\AuthenticationException;
use Postbus\Exception\ConflictException;
use Postbus\Exception\ConnectionException;
use Postbus\Exception\NotFoundException;
use Postbus\Exception\PermissionException;
use Postbus\Exception\PrerequisiteException;
use Postbus\Exception\RateLimitException;
use Postbus\Exception\ServerException;
use Postbus\Exception\TimeoutException;
use Postbus\Exception\ValidationException;
use Postbus\Http\Response;
use Postbus\Tests\Support\ClientFactory;
use Postbus\Tests\Support\FakeTransport;

final class RetryTest extends TestCase
{
    private const USER = ['email' => 'ada@example.com', 'name' => 'Ada'];

    public function testASendAnswered503TwiceIsRetriedWithOneIdempotencyKeyAcrossTries(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(503, 'service-unavailable'), FakeTransport::problem(503, 'service-unavailable'), FakeTransport::accepted()]);

        $result = $f->client->emails->send('p1', 'welcome', self::USER, ['code' => '4711']);

        self::assertSame('msg_1', $result['message_id']);
        self::assertCount(3, $f->transport->requests);
        $keys = array_map(static fn ($r) => $r->header('Idempotency-Key'), $f->transport->requests);
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', (string) $keys[0]);
        self::assertSame([$keys[0], $keys[0], $keys[0]], $keys);
        self::assertCount(2, $f->sleeps);
    }

    public function testEveryCallGetsAKeyOfItsOwn(): void
    {
        $f = ClientFactory::answering([FakeTransport::accepted(), FakeTransport::accepted()]);

        $f->client->emails->send('p1', 'welcome', self::USER);
        $f->client->emails->send('p1', 'welcome', self::USER);

        self::assertNotSame($f->transport->requests[0]->header('Idempotency-Key'), $f->transport->requests[1]->header('Idempotency-Key'));
    }

    public function testTheCallersOwnIdempotencyKeyWinsOnEveryTry(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(502, 'bad-gateway'), FakeTransport::accepted()]);

        $f->client->emails->send('p1', 'welcome', self::USER, [], ['idempotency_key' => 'order-4711-welcome']);

        self::assertSame('order-4711-welcome', $f->transport->requests[0]->header('Idempotency-Key'));
        self::assertSame('order-4711-welcome', $f->transport->requests[1]->header('Idempotency-Key'));
    }

    public function testEveryPostOperationCarriesAKey(): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, FakeTransport::accepted()));

        $f->client->users->create('p1', ['email' => 'ada@example.com']);
        $f->client->users->unsubscribe('p1', ['email' => 'ada@example.com']);
        $f->client->users->erase('p1', ['email' => 'ada@example.com']);
        $f->client->payments->record('p1', ['email' => 'ada@example.com', 'payment_id' => 'pay_1', 'amount' => 100, 'currency' => 'EUR']);

        foreach ($f->transport->requests as $request) {
            self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', (string) $request->header('Idempotency-Key'), $request->url);
        }
    }

    public function testAfterMaxRetriesTheLastErrorSurfaces(): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, FakeTransport::problem(503, 'service-unavailable')));

        try {
            $f->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (ServerException $e) {
            self::assertSame(503, $e->getStatus());
        }
        self::assertCount(4, $f->transport->requests, 'the first try and 3 retries');
    }

    public function testMaxRetriesIsConfigurableAndZeroDisablesRetrying(): void
    {
        $none = ClientFactory::answering([FakeTransport::problem(503, 'service-unavailable')], ['max_retries' => 0]);
        try {
            $none->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (ServerException) {
        }
        self::assertCount(1, $none->transport->requests);
        self::assertSame([], $none->sleeps);

        $one = ClientFactory::answering(array_fill(0, 3, FakeTransport::problem(500, 'internal')), ['max_retries' => 1]);
        try {
            $one->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (ServerException) {
        }
        self::assertCount(2, $one->transport->requests);
    }

    /** @return iterable<string, array{Response, class-string}> */
    public static function notRetried(): iterable
    {
        yield '400' => [FakeTransport::problem(400, 'validation-failed', ['errors' => [['pointer' => '/user/email', 'message' => 'must match format "email"']]]), ValidationException::class];
        yield '401' => [FakeTransport::problem(401, 'unauthorized'), AuthenticationException::class];
        yield '403' => [FakeTransport::problem(403, 'forbidden'), PermissionException::class];
        yield '404' => [FakeTransport::problem(404, 'not-found'), NotFoundException::class];
        yield '422' => [FakeTransport::problem(422, 'sender-domain-unverified'), PrerequisiteException::class];
        yield '409 other than in flight' => [FakeTransport::problem(409, 'email-key-taken'), ConflictException::class];
    }

    /**
     * @dataProvider notRetried
     * @param class-string $expected
     */
    public function testAClientErrorIsNotRetried(Response $answer, string $expected): void
    {
        $f = ClientFactory::answering([$answer, FakeTransport::accepted()]);

        try {
            $f->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (\Throwable $e) {
            self::assertInstanceOf($expected, $e);
        }
        self::assertCount(1, $f->transport->requests);
        self::assertSame([], $f->sleeps);
    }

    public function testA429WaitsTheSecondsRetryAfterAsksFor(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(429, 'rate-limited', [], ['Retry-After' => '7']), FakeTransport::accepted()]);

        $f->client->emails->send('p1', 'welcome', self::USER);

        self::assertSame([7.0], $f->sleeps);
        self::assertCount(2, $f->transport->requests);
    }

    public function testRetryAfterAsAnHttpDateIsMeasuredFromTheClock(): void
    {
        // The factory's clock says 1_800_000_000; the date is 12 seconds later.
        $date = gmdate('D, d M Y H:i:s \G\M\T', 1_800_000_012);
        $f = ClientFactory::answering([FakeTransport::problem(429, 'rate-limited', [], ['Retry-After' => $date]), FakeTransport::accepted()]);

        $f->client->users->create('p1', ['email' => 'ada@example.com']);

        self::assertSame([12.0], $f->sleeps);
    }

    public function testA429ThatOutlastsTheRetriesSurfacesWithRetryAfter(): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, FakeTransport::problem(429, 'rate-limited', [], ['Retry-After' => '2'])));

        try {
            $f->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (RateLimitException $e) {
            self::assertSame(2.0, $e->getRetryAfter());
            self::assertSame(429, $e->getStatus());
        }
        self::assertSame([2.0, 2.0, 2.0], $f->sleeps);
    }

    public function testARetryAfterLongerThanMaxRetryAfterFailsAtOnce(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(429, 'rate-limited', [], ['Retry-After' => '3600']), FakeTransport::accepted()], ['max_retry_after' => 60]);

        try {
            $f->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (RateLimitException $e) {
            self::assertSame(3600.0, $e->getRetryAfter());
        }
        self::assertCount(1, $f->transport->requests);
        self::assertSame([], $f->sleeps);
    }

    public function testA503WithRetryAfterWaitsThatLong(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(503, 'service-unavailable', [], ['Retry-After' => '5']), FakeTransport::accepted()]);

        $f->client->emails->send('p1', 'welcome', self::USER);

        self::assertSame([5.0], $f->sleeps);
    }

    public function testA409ForARequestStillInFlightIsRetriedWithTheSameKey(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(409, 'idempotency-in-flight'), FakeTransport::accepted()]);

        $result = $f->client->emails->send('p1', 'welcome', self::USER);

        self::assertSame('accepted', $result['status']);
        self::assertCount(2, $f->transport->requests);
        self::assertSame($f->transport->requests[0]->header('Idempotency-Key'), $f->transport->requests[1]->header('Idempotency-Key'));
    }

    public function testBackoffIsExponentialWithFullJitterAndCapped(): void
    {
        $draws = [0.0, 0.5, 0.25, 1.0 - 1e-9];
        $f = ClientFactory::answering(
            array_merge(array_fill(0, 4, FakeTransport::problem(500, 'internal')), [FakeTransport::accepted()]),
            ['max_retries' => 4, 'retry_base_delay' => 1.0, 'retry_max_delay' => 3.0, 'random' => function () use (&$draws): float {
                return array_shift($draws);
            }],
        );

        $f->client->emails->send('p1', 'welcome', self::USER);

        // Ceilings 1, 2, 4→3 (capped), 8→3; each wait a random share of its ceiling.
        self::assertCount(4, $f->sleeps);
        self::assertEqualsWithDelta(0.0, $f->sleeps[0], 1e-9);
        self::assertEqualsWithDelta(1.0, $f->sleeps[1], 1e-9);
        self::assertEqualsWithDelta(0.75, $f->sleeps[2], 1e-9);
        self::assertEqualsWithDelta(3.0, $f->sleeps[3], 1e-6);
    }

    public function testConnectionErrorsAreRetriedThenSurfacedAsConnectionException(): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, new ConnectionException('connection refused')));

        try {
            $f->client->emails->send('p1', 'welcome', self::USER);
            self::fail('no exception');
        } catch (ConnectionException $e) {
            self::assertNotInstanceOf(TimeoutException::class, $e);
        }
        self::assertCount(4, $f->transport->requests);
        self::assertCount(1, array_unique(array_map(static fn ($r) => $r->header('Idempotency-Key'), $f->transport->requests)));
    }

    public function testTimeoutsAreRetriedThenSurfacedAsTimeoutException(): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, new TimeoutException('timed out')));

        $this->expectException(TimeoutException::class);
        try {
            $f->client->users->create('p1', ['email' => 'ada@example.com']);
        } finally {
            self::assertCount(4, $f->transport->requests);
        }
    }

    public function testATimeoutFollowedByAnAnswerSucceeds(): void
    {
        $f = ClientFactory::answering([new TimeoutException('timed out'), FakeTransport::accepted()]);

        self::assertSame('msg_1', $f->client->emails->send('p1', 'welcome', self::USER)['message_id']);
        self::assertSame($f->transport->requests[0]->header('Idempotency-Key'), $f->transport->requests[1]->header('Idempotency-Key'));
    }

    public function testGetsAreRetriedAndCarryNoIdempotencyKey(): void
    {
        $f = ClientFactory::answering([new ConnectionException('reset'), FakeTransport::problem(503, 'service-unavailable'), FakeTransport::json(200, ['data' => [], 'next_cursor' => null])]);

        $page = $f->client->messages->list('p1', ['email' => 'ada@example.com']);

        self::assertSame([], $page['data']);
        self::assertCount(3, $f->transport->requests);
        foreach ($f->transport->requests as $request) {
            self::assertSame('GET', $request->method);
            self::assertNull($request->header('Idempotency-Key'));
        }
    }

    public function testPatchUpdatesAreRetriedWithoutAKeyTheGatewayWouldIgnore(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(503, 'service-unavailable'), FakeTransport::accepted()]);

        $f->client->users->updateByUserId('p1', 'u1', ['plan' => 'pro']);

        self::assertCount(2, $f->transport->requests);
        self::assertNull($f->transport->requests[1]->header('Idempotency-Key'));
    }

    public function testPerCallMaxRetriesAndTimeoutOverrideTheClients(): void
    {
        $f = ClientFactory::answering([FakeTransport::problem(503, 'service-unavailable')], ['timeout' => 30]);

        try {
            $f->client->emails->send('p1', 'welcome', self::USER, [], ['max_retries' => 0, 'timeout' => 2.5]);
            self::fail('no exception');
        } catch (ServerException) {
        }
        self::assertCount(1, $f->transport->requests);
        self::assertSame(2.5, $f->transport->requests[0]->timeout);
    }
}
