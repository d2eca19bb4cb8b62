<?php

declare(strict_types=1);

namespace Postbus\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Postbus\Exception\ApiException;
use Postbus\Exception\AuthenticationException;
use Postbus\Exception\ConflictException;
use Postbus\Exception\IdempotencyKeyReusedException;
use Postbus\Exception\NotFoundException;
use Postbus\Exception\PermissionException;
use Postbus\Exception\PostbusException;
use Postbus\Exception\PrerequisiteException;
use Postbus\Exception\RateLimitException;
use Postbus\Exception\RequestException;
use Postbus\Exception\ServerException;
use Postbus\Exception\ValidationException;
use Postbus\Http\Response;
use Postbus\Tests\Support\ClientFactory;
use Postbus\Tests\Support\FakeTransport;

final class ErrorMappingTest extends TestCase
{
    /** @return iterable<string, array{Response, class-string<ApiException>, int, string}> */
    public static function answers(): iterable
    {
        yield '400 validation-failed' => [FakeTransport::problem(400, 'validation-failed'), ValidationException::class, 400, '/problems/validation-failed'];
        yield '400 malformed-request' => [FakeTransport::problem(400, 'malformed-request'), ValidationException::class, 400, '/problems/malformed-request'];
        yield '401 unauthorized' => [FakeTransport::problem(401, 'unauthorized', [], ['WWW-Authenticate' => 'Basic realm="postbus"']), AuthenticationException::class, 401, '/problems/unauthorized'];
        yield '403 forbidden' => [FakeTransport::problem(403, 'forbidden'), PermissionException::class, 403, '/problems/forbidden'];
        yield '404 not-found' => [FakeTransport::problem(404, 'not-found'), NotFoundException::class, 404, '/problems/not-found'];
        yield '409 email-key-taken' => [FakeTransport::problem(409, 'email-key-taken'), ConflictException::class, 409, '/problems/email-key-taken'];
        yield '413 payload-too-large' => [FakeTransport::problem(413, 'payload-too-large'), ValidationException::class, 413, '/problems/payload-too-large'];
        yield '415 unsupported-media-type' => [FakeTransport::problem(415, 'unsupported-media-type'), ValidationException::class, 415, '/problems/unsupported-media-type'];
        yield '422 idempotency-key-reused' => [FakeTransport::problem(422, 'idempotency-key-reused'), IdempotencyKeyReusedException::class, 422, '/problems/idempotency-key-reused'];
        yield '422 unmet prerequisite' => [FakeTransport::problem(422, 'sender-domain-unverified'), PrerequisiteException::class, 422, '/problems/sender-domain-unverified'];
        yield '422 with field errors' => [FakeTransport::problem(422, 'unprocessable', ['errors' => [['pointer' => '/to', 'message' => 'before from']]]), ValidationException::class, 422, '/problems/unprocessable'];
        yield '429 rate-limited' => [FakeTransport::problem(429, 'rate-limited', [], ['Retry-After' => '9999']), RateLimitException::class, 429, '/problems/rate-limited'];
        yield '500 internal' => [FakeTransport::problem(500, 'internal'), ServerException::class, 500, '/problems/internal'];
        yield '503 service-unavailable' => [FakeTransport::problem(503, 'service-unavailable'), ServerException::class, 503, '/problems/service-unavailable'];
        yield '502 with an HTML body' => [new Response(502, ['Content-Type' => 'text/html'], '<html>Bad Gateway</html>'), ServerException::class, 502, 'about:blank'];
        yield '418 unknown 4xx' => [FakeTransport::problem(418, 'teapot'), RequestException::class, 418, '/problems/teapot'];
    }

    /**
     * @dataProvider answers
     * @param class-string<ApiException> $expected
     */
    public function testEachStatusAndTypeMapsToItsException(Response $answer, string $expected, int $status, string $type): void
    {
        $f = ClientFactory::answering(array_fill(0, 4, $answer), ['max_retries' => 0]);

        try {
            $f->client->users->create('p1', ['email' => 'ada@example.com']);
            self::fail('no exception');
        } catch (PostbusException $e) {
            self::assertSame($expected, $e::class);
            self::assertInstanceOf(ApiException::class, $e);
            self::assertSame($status, $e->getStatus());
            self::assertSame($type, $e->getType());
            self::assertSame($status, $e->getProblem()['status'] ?? $status);
        }
    }

    public function testAValidationErrorCarriesTheProblemWithPointers(): void
    {
        $errors = [['pointer' => '/user/email', 'message' => 'must match format "email"']];
        $f = ClientFactory::answering([FakeTransport::problem(400, 'validation-failed', ['detail' => 'The body has 1 invalid field.', 'errors' => $errors])]);

        try {
            $f->client->emails->send('p1', 'welcome', ['email' => 'not-an-email']);
            self::fail('no exception');
        } catch (ValidationException $e) {
            self::assertSame($errors, $e->getErrors());
            self::assertSame('req_test', $e->getRequestId());
            self::assertSame('validation-failed', $e->getSlug());
            self::assertSame('The body has 1 invalid field.', $e->getDetail());
            self::assertSame('/problems/validation-failed', $e->getProblem()['type']);
            self::assertStringContainsString('The body has 1 invalid field.', $e->getMessage());
        }
    }

    public function testRemovingAComplaintSuppressionIsAConflictNamingWhyAndIsNotRetried(): void
    {
        $f = ClientFactory::answering([
            FakeTransport::problem(409, 'suppression-is-a-complaint', ['detail' => 'The recipient reported a message as spam.']),
            FakeTransport::problem(404, 'not-found'),
        ]);

        try {
            $f->client->suppressions->remove('p1', 'angry@example.com');
            self::fail('no exception');
        } catch (ConflictException $e) {
            self::assertSame('suppression-is-a-complaint', $e->getSlug());
            self::assertSame(409, $e->getStatus());
        }
        self::assertCount(1, $f->transport->requests);
        self::assertSame([], $f->sleeps);
        $this->expectException(NotFoundException::class);
        $f->client->suppressions->remove('p1', 'nobody@example.com');
    }

    public function testPrerequisiteAndKeyReuseAreValidationExceptionsToo(): void
    {
        self::assertTrue(is_subclass_of(PrerequisiteException::class, ValidationException::class));
        self::assertTrue(is_subclass_of(IdempotencyKeyReusedException::class, ValidationException::class));
    }

    public function testTheRequestIdFallsBackToTheHeader(): void
    {
        $f = ClientFactory::answering([new Response(404, ['X-Request-Id' => 'req_from_header'], '')]);

        try {
            $f->client->messages->get('p1', 'msg_1');
            self::fail('no exception');
        } catch (NotFoundException $e) {
            self::assertSame('req_from_header', $e->getRequestId());
            self::assertSame([], $e->getErrors());
        }
    }

    public function testA200WhoseBodyIsNotJsonIsAServerException(): void
    {
        $f = ClientFactory::answering([new Response(200, ['Content-Type' => 'text/html'], '<html>captive portal</html>')]);

        try {
            $f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com']);
            self::fail('no exception');
        } catch (ServerException $e) {
            self::assertSame(200, $e->getStatus());
            self::assertStringContainsString('not JSON', $e->getMessage());
        }
        self::assertCount(1, $f->transport->requests);
    }

    public function testA200WithJsonThatIsNotAnObjectIsAServerException(): void
    {
        $f = ClientFactory::answering([new Response(200, [], '"accepted"')]);

        $this->expectException(ServerException::class);
        $f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com']);
    }

    public function testEveryExceptionOfTheSdkIsAPostbusException(): void
    {
        foreach (glob(__DIR__ . '/../../src/Exception/*.php') ?: [] as $file) {
            $class = 'Postbus\\Exception\\' . basename($file, '.php');
            self::assertTrue($class === PostbusException::class || is_subclass_of($class, PostbusException::class), $class);
        }
    }
}
