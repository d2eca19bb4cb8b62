<?php

declare(strict_types=1);

namespace Postbus\Tests\Integration;

use PHPUnit\Framework\TestCase;
use Postbus\Attachment;
use Postbus\Client;
use Postbus\Exception\AuthenticationException;
use Postbus\Exception\ConflictException;
use Postbus\Exception\ConnectionException;
use Postbus\Exception\IdempotencyKeyReusedException;
use Postbus\Exception\NotFoundException;
use Postbus\Exception\PermissionException;
use Postbus\Exception\ValidationException;
use Postbus\Tests\Support\LocalServer;

/**
 * The SDK against the running system. Started by e2e/php-sdk.e2e.test.ts, which starts the stack,
 * a client with an "sdk" key (the data plane) and a "full" key (the reads), a sendable email, and
 * a fault proxy in front of the gateway, and passes them in POSTBUS_* variables.
 */
final class StackTest extends TestCase
{
    /** @var array<string, string> */
    private static array $env;

    public static function setUpBeforeClass(): void
    {
        $names = ['POSTBUS_BASE_URL', 'POSTBUS_PROXY_URL', 'POSTBUS_CLIENT_ID', 'POSTBUS_API_KEY', 'POSTBUS_FULL_API_KEY', 'POSTBUS_PROJECT_ID', 'POSTBUS_EMAIL_KEY', 'POSTBUS_SENDER_DOMAIN', 'POSTBUS_SINK_URL', 'POSTBUS_RETRY_RECIPIENT'];
        $missing = [];
        foreach ($names as $name) {
            $value = getenv($name);
            if ($value === false || $value === '') {
                $missing[] = $name;
            } else {
                self::$env[$name] = $value;
            }
        }
        if ($missing !== []) {
            // Fail, never skip: run through `npx jest e2e/php-sdk.e2e.test.ts`, which sets these.
            throw new \RuntimeException('The integration suite runs through e2e/php-sdk.e2e.test.ts; missing ' . implode(', ', $missing));
        }
    }

    /** @param array<string, mixed> $options */
    private static function sdk(array $options = []): Client
    {
        return new Client(self::$env['POSTBUS_CLIENT_ID'], self::$env['POSTBUS_API_KEY'], $options + ['base_url' => self::$env['POSTBUS_BASE_URL'], 'timeout' => 15]);
    }

    private static function full(): Client
    {
        return new Client(self::$env['POSTBUS_CLIENT_ID'], self::$env['POSTBUS_FULL_API_KEY'], ['base_url' => self::$env['POSTBUS_BASE_URL'], 'timeout' => 15]);
    }

    private static function project(): string
    {
        return self::$env['POSTBUS_PROJECT_ID'];
    }

    private static function recipient(string $what): string
    {
        return 'php-' . $what . '-' . bin2hex(random_bytes(4)) . '@example.com';
    }

    /**
     * Polls until $probe returns a non-null value; the API is asynchronous (accepted, then processed).
     *
     * @template T
     * @param callable(): (T|null) $probe
     * @return T
     */
    private static function eventually(string $what, callable $probe, float $seconds = 30.0): mixed
    {
        $deadline = microtime(true) + $seconds;
        $last = null;
        do {
            try {
                $value = $probe();
                if ($value !== null) {
                    return $value;
                }
            } catch (NotFoundException $e) {
                $last = $e; // not there yet
            }
            usleep(200_000);
        } while (microtime(true) < $deadline);
        throw new \RuntimeException("Gave up waiting for: $what" . ($last ? ' (last: ' . $last->getMessage() . ')' : ''));
    }

    /** @return array<string, mixed> the user's profile once it has been created */
    private static function profile(string $email, ?callable $until = null): array
    {
        return self::eventually("the profile of $email", static function () use ($email, $until): ?array {
            $profile = self::full()->users->get(self::project(), ['email' => $email]);
            return $until === null || $until($profile) ? $profile : null;
        });
    }

    /** @return list<array<string, mixed>> */
    private static function sinkMessagesTo(string $email): array
    {
        $url = self::$env['POSTBUS_SINK_URL'] . '/api/v1/search?limit=50&query=' . rawurlencode('to:' . $email);
        $answer = json_decode((string) file_get_contents($url), true, 512, JSON_THROW_ON_ERROR);
        return $answer['messages'];
    }

    /** @return array<string, mixed> one mail in the SMTP sink, with its Subject, From, HTML, Text and Attachments */
    private static function sinkMessage(string $id): array
    {
        $url = self::$env['POSTBUS_SINK_URL'] . '/api/v1/message/' . rawurlencode($id);
        return json_decode((string) file_get_contents($url), true, 512, JSON_THROW_ON_ERROR);
    }

    /** @param array<string, mixed>|null $json */
    private static function proxy(string $method, string $path, ?array $json = null): mixed
    {
        $context = stream_context_create(['http' => [
            'method' => $method,
            'header' => "Content-Type: application/json\r\n",
            'content' => $json === null ? '' : json_encode($json, JSON_THROW_ON_ERROR),
            'ignore_errors' => true,
        ]]);
        return json_decode((string) file_get_contents(self::$env['POSTBUS_PROXY_URL'] . $path, false, $context), true, 512, JSON_THROW_ON_ERROR);
    }

    public function testASentEmailReachesStatusSentAndTheRecipient(): void
    {
        $email = self::recipient('send');

        $accepted = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email, 'name' => 'Ada'], ['code' => '4711']);

        self::assertSame('accepted', $accepted['status']);
        self::assertIsString($accepted['request_id']);
        self::assertStringStartsWith('msg_', $accepted['message_id']);
        $message = self::eventually('the message to be sent', static function () use ($accepted): ?array {
            $message = self::full()->messages->get(self::project(), $accepted['message_id']);
            return $message['status'] === 'sent' ? $message : null;
        });
        self::assertSame($email, $message['email']);
        $listed = self::full()->messages->list(self::project(), ['email' => $email]);
        self::assertSame([$accepted['message_id']], array_column($listed['data'], 'id'));
        $inSink = self::eventually('the mail in the SMTP sink', static fn (): ?array => self::sinkMessagesTo($email) ?: null);
        self::assertCount(1, $inSink);
        self::assertSame('Hello Ada', $inSink[0]['Subject']);
    }

    public function testAttachmentsFromAPathAndFromBytesAreSentAndListedAndAProgramIsRefused(): void
    {
        $email = self::recipient('files');
        $path = tempnam(sys_get_temp_dir(), 'pb');
        file_put_contents($path, '%PDF-1.4 invoice');
        try {
            $accepted = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email], ['code' => '1'], [
                'attachments' => [Attachment::fromPath($path, 'invoice.pdf'), Attachment::fromBytes('hi', 'notes.txt')],
            ]);
        } finally {
            unlink($path);
        }
        $message = self::eventually('the message to be sent', static function () use ($accepted): ?array {
            $message = self::full()->messages->get(self::project(), $accepted['message_id']);
            return $message['status'] === 'sent' ? $message : null;
        });
        self::assertSame([
            ['filename' => 'invoice.pdf', 'content_type' => 'application/pdf', 'size' => 16],
            ['filename' => 'notes.txt', 'content_type' => 'text/plain', 'size' => 2],
        ], $message['attachments']);

        try {
            self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email], [], [
                'attachments' => [Attachment::fromBytes('MZ', 'setup.exe')],
            ]);
            self::fail('no exception');
        } catch (ValidationException $e) {
            self::assertSame(422, $e->getStatus());
            self::assertSame(['/attachments/0/filename'], array_column($e->getErrors(), 'pointer'));
        }
    }

    public function testAContentSendArrivesAsGivenAndReadsBackWithSourceApiAndNoTemplate(): void
    {
        $email = self::recipient('content');
        $copy = self::recipient('content-copy');
        $domain = self::$env['POSTBUS_SENDER_DOMAIN'];

        $accepted = self::sdk()->emails->sendContent(self::project(), [
            'from' => "PHP Shop <shop@$domain>",
            'to' => [$email, $copy],
            'subject' => 'Your receipt from the PHP SDK',
            'html' => '<p>Thanks for order <b>4711</b></p>',
            'text' => 'Thanks for order 4711',
            'tags' => ['php-content'],
            'metadata' => ['order' => '4711'],
            'attachments' => [Attachment::fromBytes('hi', 'notes.txt')],
        ], ['idempotency_key' => 'php-content-' . bin2hex(random_bytes(8))]);

        self::assertSame('accepted', $accepted['status']);
        self::assertStringStartsWith('msg_', $accepted['message_id']);
        $message = self::eventually('the content message to be sent', static function () use ($accepted): ?array {
            $message = self::full()->messages->get(self::project(), $accepted['message_id']);
            return $message['status'] === 'sent' ? $message : null;
        });
        self::assertSame($email, $message['email']);
        self::assertNull($message['email_key']);
        self::assertSame('api', $message['source']);
        self::assertNull($message['template']);
        self::assertSame([$copy], $message['to']);
        self::assertSame('Your receipt from the PHP SDK', $message['subject']);
        self::assertSame(['php-content'], $message['tags']);
        self::assertSame([['filename' => 'notes.txt', 'content_type' => 'text/plain', 'size' => 2]], $message['attachments']);

        $inSink = self::eventually('the content mail in the SMTP sink', static fn (): ?array => self::sinkMessagesTo($email) ?: null);
        $mail = self::sinkMessage($inSink[0]['ID']);
        self::assertSame('Your receipt from the PHP SDK', $mail['Subject']);
        self::assertSame(['Name' => 'PHP Shop', 'Address' => "shop@$domain"], array_intersect_key($mail['From'], ['Name' => 1, 'Address' => 1]));
        self::assertStringContainsString('Thanks for order <b>4711</b>', $mail['HTML']);
        self::assertStringContainsString('Thanks for order 4711', $mail['Text']);
        self::assertSame(['notes.txt'], array_column($mail['Attachments'], 'FileName'));

        try {
            self::sdk()->emails->sendContent(self::project(), ['to' => $email, 'subject' => 'x', 'text' => 'x', 'from' => 'someone@elsewhere.example']);
            self::fail('a From off the verified sender domain was accepted');
        } catch (ValidationException $e) {
            self::assertSame(422, $e->getStatus());
            self::assertSame(['/from'], array_column($e->getErrors(), 'pointer'));
        }
    }

    public function testABatchTakesAContentSendBesideATemplateSend(): void
    {
        $templated = self::recipient('batch-template');
        $content = self::recipient('batch-content');

        $answer = self::sdk()->emails->sendBatch(self::project(), [
            ['email_key' => self::$env['POSTBUS_EMAIL_KEY'], 'user' => ['email' => $templated], 'data' => ['code' => '1']],
            ['to' => $content, 'subject' => 'Batch content', 'text' => 'one', 'send_at' => new \DateTimeImmutable('+2 seconds')],
        ]);

        self::assertSame(['accepted', 'accepted'], array_column($answer['data'], 'status'));
        $ids = array_column($answer['data'], 'message_id');
        $read = static fn (string $id): array => self::eventually("message $id to be sent", static function () use ($id): ?array {
            $message = self::full()->messages->get(self::project(), $id);
            return $message['status'] === 'sent' ? $message : null;
        });
        $template = $read($ids[0]);
        $sent = $read($ids[1]);
        self::assertSame(self::$env['POSTBUS_EMAIL_KEY'], $template['email_key']);
        self::assertIsArray($template['template']);
        self::assertSame('api', $template['source']);
        self::assertSame($content, $sent['email']);
        self::assertNull($sent['email_key']);
        self::assertNull($sent['template']);
        self::assertSame('api', $sent['source']);
    }

    public function testABatchWithTagsAndMetadataIsAnsweredPerMessageAndSent(): void
    {
        $good = self::recipient('batch');
        $answer = self::sdk()->emails->sendBatch(self::project(), [
            ['email_key' => self::$env['POSTBUS_EMAIL_KEY'], 'user' => ['email' => $good], 'tags' => ['php-batch'], 'metadata' => ['order' => 'php-1']],
            ['email_key' => self::$env['POSTBUS_EMAIL_KEY'], 'user' => ['email' => 'not-an-email']],
        ]);

        self::assertSame([0, 1], array_column($answer['data'], 'index'));
        self::assertSame('accepted', $answer['data'][0]['status']);
        self::assertSame('rejected', $answer['data'][1]['status']);
        self::assertSame('/messages/1/user/email', $answer['data'][1]['error']['errors'][0]['pointer']);
        $id = $answer['data'][0]['message_id'];
        $message = self::eventually('the batch message to be sent', static function () use ($id): ?array {
            $message = self::full()->messages->get(self::project(), $id);
            return $message['status'] === 'sent' ? $message : null;
        });
        self::assertSame(['php-batch'], $message['tags']);
        self::assertSame(['order' => 'php-1'], $message['metadata']);
    }

    public function testAScheduledSendIsCancelledWithTheSdkKeyAndACancelOfASentOneIsAConflict(): void
    {
        $at = new \DateTimeImmutable('+1 hour');
        $accepted = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => self::recipient('scheduled')], [], ['send_at' => $at]);
        self::assertSame((new \DateTimeImmutable($accepted['send_at']))->getTimestamp(), $at->getTimestamp());
        $id = $accepted['message_id'];
        // The mailer has the message once the trigger reached it: until then it is a 404.
        $canceled = self::eventually('the scheduled message to be cancelled', static fn (): array => self::sdk()->messages->cancel(self::project(), $id));
        self::assertSame('canceled', $canceled['status']);
        self::assertSame(['scheduled', 'canceled'], array_column($canceled['timeline'], 'event'));

        $now = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => self::recipient('unscheduled')]);
        self::eventually('the unscheduled message to be sent', static fn (): ?bool => self::full()->messages->get(self::project(), $now['message_id'])['status'] === 'sent' ?: null);
        $this->expectException(ConflictException::class);
        self::sdk()->messages->cancel(self::project(), $now['message_id']);
    }

    public function testCreateUserThenReadItByEmailAndByUserId(): void
    {
        $email = self::recipient('create');
        $userId = 'crm/' . bin2hex(random_bytes(4));

        $accepted = self::sdk()->users->create(self::project(), ['email' => $email, 'user_id' => $userId, 'fields' => ['name' => 'Ada', 'plan' => 'free']]);

        self::assertSame('accepted', $accepted['status']);
        $profile = self::profile($email);
        self::assertSame($userId, $profile['user_id']);
        self::assertSame('Ada', $profile['name']);
        self::assertSame('free', $profile['fields']['plan']);
        // The user_id holds a slash: the path segment must be URL-encoded to find the user.
        self::assertSame($email, self::full()->users->get(self::project(), ['user_id' => $userId])['email']);
    }

    public function testUpdateByEmailChangesFields(): void
    {
        $email = self::recipient('by-email');
        self::sdk()->users->create(self::project(), ['email' => $email, 'fields' => ['plan' => 'free', 'ships' => 3]]);
        self::profile($email);

        self::sdk()->users->updateByEmail(self::project(), strtoupper($email), ['plan' => 'pro', 'country' => 'NL', 'ships' => null]);

        $profile = self::profile($email, static fn (array $p): bool => ($p['fields']['plan'] ?? null) === 'pro');
        self::assertSame('NL', $profile['country']);
        self::assertArrayNotHasKey('ships', $profile['fields']);
    }

    public function testUpdateByUserIdChangesFields(): void
    {
        $email = self::recipient('by-id');
        $userId = 'u-' . bin2hex(random_bytes(4));
        self::sdk()->users->create(self::project(), ['email' => $email, 'user_id' => $userId]);
        self::profile($email);

        self::sdk()->users->updateByUserId(self::project(), $userId, ['name' => 'Grace', 'level' => 7]);

        $profile = self::profile($email, static fn (array $p): bool => ($p['fields']['level'] ?? null) === 7);
        self::assertSame('Grace', $profile['name']);
    }

    public function testARecordedPaymentIsListed(): void
    {
        $email = self::recipient('pay');
        self::sdk()->users->create(self::project(), ['email' => $email]);
        self::profile($email);

        $accepted = self::sdk()->payments->record(self::project(), ['email' => $email, 'payment_id' => 'pay_' . bin2hex(random_bytes(4)), 'amount' => 1999, 'currency' => 'EUR', 'description' => 'Pro plan']);

        self::assertSame('accepted', $accepted['status']);
        $payments = self::eventually('the payment', static function () use ($email): ?array {
            $page = self::full()->payments->list(self::project(), ['email' => $email]);
            return $page['data'] !== [] ? $page['data'] : null;
        });
        self::assertSame(1999, $payments[0]['amount']);
        self::assertSame('EUR', $payments[0]['currency']);
    }

    public function testUnsubscribeShowsInTheProfile(): void
    {
        $email = self::recipient('unsub');
        self::sdk()->users->create(self::project(), ['email' => $email]);
        self::profile($email);

        self::sdk()->users->unsubscribe(self::project(), ['email' => $email, 'reason' => 'too many mails']);

        $profile = self::profile($email, static fn (array $p): bool => $p['subscription']['status'] === 'unsubscribed');
        self::assertSame('too many mails', $profile['subscription']['reason']);
    }

    public function testEraseAnswersWithEraseAt(): void
    {
        $email = self::recipient('erase');
        $userId = 'erase-' . bin2hex(random_bytes(4));
        self::sdk()->users->create(self::project(), ['email' => $email, 'user_id' => $userId]);
        self::profile($email);

        $accepted = self::sdk()->users->erase(self::project(), ['user_id' => $userId]);

        self::assertSame('accepted', $accepted['status']);
        self::assertIsString($accepted['erasure_id']);
        $eraseAt = new \DateTimeImmutable($accepted['erase_at']);
        self::assertGreaterThan(new \DateTimeImmutable('-1 minute'), $eraseAt);
        $profile = self::profile($email, static fn (array $p): bool => $p['erasure'] !== null);
        self::assertSame($accepted['erasure_id'], $profile['erasure']['id']);
    }

    public function testASuppressedAddressIsListedGetsNoMailAndIsMailedAgainOnceRemoved(): void
    {
        // A "+" and an "@" in the email, which remove() puts in the path.
        $email = 'php-suppress+' . bin2hex(random_bytes(4)) . '@example.com';

        $added = self::full()->suppressions->add(self::project(), $email);

        self::assertSame('accepted', $added['status']);
        $listed = self::eventually('the manual suppression listed', static function () use ($email): ?array {
            $page = self::full()->suppressions->list(self::project(), ['reason' => 'manual', 'limit' => 100]);
            $mine = array_values(array_filter($page['data'], static fn (array $s): bool => $s['email'] === $email));
            return $mine !== [] ? $mine : null;
        });
        self::assertSame('manual', $listed[0]['reason']);
        self::assertNull($listed[0]['message_id']);
        self::assertSame([], self::full()->suppressions->list(self::project(), ['email' => $email, 'reason' => 'hard_bounce'])['data']);

        $accepted = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email]);
        $message = self::eventually('the send to the suppressed address to end suppressed', static function () use ($accepted): ?array {
            $message = self::full()->messages->get(self::project(), $accepted['message_id']);
            return in_array($message['status'], ['sent', 'suppressed', 'failed'], true) ? $message : null;
        });
        self::assertSame('suppressed', $message['status']);

        $removed = self::full()->suppressions->remove(self::project(), $email);

        self::assertSame('accepted', $removed['status']);
        self::eventually('the suppression gone from the list', static function () use ($email): ?bool {
            return self::full()->suppressions->list(self::project(), ['email' => $email])['data'] === [] ? true : null;
        });
        try {
            self::full()->suppressions->remove(self::project(), $email);
            self::fail('removing an address that is not suppressed succeeded');
        } catch (NotFoundException $e) {
            self::assertSame(404, $e->getStatus());
        }
        $again = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email]);
        self::eventually('the send after the removal to be sent', static function () use ($again): ?bool {
            return self::full()->messages->get(self::project(), $again['message_id'])['status'] === 'sent' ? true : null;
        });
    }

    public function testATemplateInALayoutWithAGermanVariantIsPublishedFromADraftAndPreviewedInGerman(): void
    {
        $templates = self::full()->templates;
        $layouts = self::full()->layouts;
        $layout = $layouts->create(self::project(), ['name' => 'Brand', 'html' => '<main class="brand">{{{content}}}</main>']);
        $german = ['language' => 'de', 'subject' => 'Hallo {{user.name}}', 'html' => '<p>Hallo {{user.name}}</p>', 'layout_id' => $layout['id']];
        $template = $templates->create(self::project(), ['name' => 'Tour', 'subject' => 'Hi {{user.name}}', 'html' => '<p>Hi {{user.name}}</p>', 'variants' => [$german]]);

        $draft = $templates->save(self::project(), $template['id'], [
            'name' => 'Tour',
            'subject' => 'Hi {{user.name}}',
            'html' => '<p>Hi {{user.name}}</p>',
            'variants' => [['subject' => 'Willkommen {{user.name}}'] + $german],
            'draft' => true,
        ]);

        self::assertSame([2, 2, 1], [$draft['version'], $draft['latest_version'], $draft['published_version']]);
        self::assertSame([2 => false, 1 => true], array_column($templates->versions(self::project(), $template['id'])['data'], 'published', 'version'));
        $before = $templates->preview(self::project(), $template['id'], ['user' => ['name' => 'Ada'], 'language' => 'de', 'version' => 1]);
        self::assertSame('Hallo Ada', $before['subject']);

        $published = $templates->publish(self::project(), $template['id'], 2);

        self::assertSame(2, $published['published_version']);
        $preview = $templates->preview(self::project(), $template['id'], ['user' => ['name' => 'Ada'], 'language' => 'de-AT']);
        self::assertSame('Willkommen Ada', $preview['subject']);
        self::assertStringContainsString('<main class="brand"><p>Hallo Ada</p></main>', $preview['html']);
        try {
            $layouts->delete(self::project(), $layout['id']);
            self::fail('a layout a published template uses was deleted');
        } catch (ConflictException $e) {
            self::assertSame(409, $e->getStatus());
        }
        $templates->delete(self::project(), $template['id']);
        $layouts->delete(self::project(), $layout['id']);
    }

    public function testTheSdkKeyMayNotReadOrChangeTheSuppressionList(): void
    {
        try {
            self::sdk()->suppressions->list(self::project());
            self::fail('an sdk key read the suppression list');
        } catch (PermissionException $e) {
            self::assertSame(403, $e->getStatus());
        }
        $this->expectException(PermissionException::class);
        self::sdk()->suppressions->add(self::project(), self::recipient('sdk-suppress'));
    }

    public function testAnInvalidEmailIsAValidationExceptionWithItsPointer(): void
    {
        try {
            self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => 'not-an-email']);
            self::fail('no exception');
        } catch (ValidationException $e) {
            self::assertSame(400, $e->getStatus());
            self::assertContains('/user/email', array_column($e->getErrors(), 'pointer'));
            self::assertNotNull($e->getRequestId());
            self::assertSame('/problems/validation-failed', $e->getType());
        }
    }

    public function testTheSdkKeyMayNotReadAndWrongCredentialsAreRefused(): void
    {
        try {
            self::sdk()->messages->list(self::project());
            self::fail('an sdk key read the message log');
        } catch (PermissionException $e) {
            self::assertSame(403, $e->getStatus());
        }
        $this->expectException(AuthenticationException::class);
        (new Client(self::$env['POSTBUS_CLIENT_ID'], 'wrong-key', ['base_url' => self::$env['POSTBUS_BASE_URL']]))->users->create(self::project(), ['email' => self::recipient('auth')]);
    }

    public function testAnUnknownEmailKeyIsNotFound(): void
    {
        $this->expectException(NotFoundException::class);
        self::sdk()->emails->send(self::project(), 'no-such-email', ['email' => self::recipient('404')]);
    }

    public function testTheSameKeyReplaysTheAnswerAndAnotherBodyWithItIsRefused(): void
    {
        $key = 'php-it-' . bin2hex(random_bytes(8));
        $email = self::recipient('replay');

        $first = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email], [], ['idempotency_key' => $key]);
        $again = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email], [], ['idempotency_key' => $key]);

        self::assertSame($first['message_id'], $again['message_id']);
        $this->expectException(IdempotencyKeyReusedException::class);
        self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => self::recipient('other')], [], ['idempotency_key' => $key]);
    }

    public function testASendAnswered503TwiceAfterTheGatewayProcessedItIsRetriedAndMailsOnce(): void
    {
        $email = self::$env['POSTBUS_RETRY_RECIPIENT'];
        self::proxy('DELETE', '/__fault/requests');
        self::proxy('POST', '/__fault', ['count' => 2, 'status' => 503, 'mode' => 'after-forward']);
        $sleeps = [];
        $client = self::sdk(['base_url' => self::$env['POSTBUS_PROXY_URL'], 'retry_base_delay' => 0.05, 'sleep' => static function (float $s) use (&$sleeps): void {
            $sleeps[] = $s;
            usleep((int) ($s * 1_000_000));
        }]);

        $accepted = $client->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => $email, 'name' => 'Retry'], ['code' => '503']);

        $seen = array_values(array_filter(self::proxy('GET', '/__fault/requests'), static fn (array $r): bool => str_ends_with($r['path'], '/send')));
        self::assertSame([503, 503, 200], array_column($seen, 'status'));
        self::assertSame([true, true, true], array_column($seen, 'forwarded'), 'the gateway saw (and processed) every try');
        self::assertCount(1, array_unique(array_column($seen, 'idempotencyKey')));
        self::assertCount(2, $sleeps);
        self::eventually('the retried message to be sent', static function () use ($accepted): ?bool {
            return self::full()->messages->get(self::project(), $accepted['message_id'])['status'] === 'sent' ? true : null;
        });
        self::assertCount(1, self::full()->messages->list(self::project(), ['email' => $email])['data'], 'one message for the recipient');
        self::assertCount(1, self::eventually('the mail in the sink', static fn (): ?array => self::sinkMessagesTo($email) ?: null));
    }

    public function testA429FromTheProxyIsWaitedOutAsRetryAfterSays(): void
    {
        self::proxy('POST', '/__fault', ['count' => 1, 'status' => 429, 'mode' => 'before-forward', 'retryAfterSeconds' => 1]);
        $sleeps = [];
        $client = self::sdk(['base_url' => self::$env['POSTBUS_PROXY_URL'], 'sleep' => static function (float $s) use (&$sleeps): void {
            $sleeps[] = $s;
            usleep((int) ($s * 1_000_000));
        }]);

        $accepted = $client->users->create(self::project(), ['email' => self::recipient('429')]);

        self::assertSame('accepted', $accepted['status']);
        self::assertSame([1.0], $sleeps);
    }

    public function testNoGatewayIsAConnectionExceptionAfterTheRetries(): void
    {
        $sleeps = 0;
        $client = self::sdk(['base_url' => 'http://127.0.0.1:' . LocalServer::freePort(), 'max_retries' => 2, 'sleep' => static function () use (&$sleeps): void {
            $sleeps++;
        }]);

        try {
            $client->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => self::recipient('down')]);
            self::fail('no exception');
        } catch (ConnectionException) {
        }
        self::assertSame(2, $sleeps);
    }

    /**
     * A management call with the full key (the SDK covers the data plane and the reads only).
     *
     * @param array<string, mixed>|null $json
     * @return array<string, mixed>
     */
    private static function manage(string $method, string $path, ?array $json = null): array
    {
        $context = stream_context_create(['http' => [
            'method' => $method,
            'header' => "Content-Type: application/json\r\nAuthorization: Basic " . base64_encode(self::$env['POSTBUS_CLIENT_ID'] . ':' . self::$env['POSTBUS_FULL_API_KEY']) . "\r\n",
            'content' => $json === null ? '' : json_encode($json, JSON_THROW_ON_ERROR),
            'ignore_errors' => true,
        ]]);
        $body = (string) file_get_contents(self::$env['POSTBUS_BASE_URL'] . $path, false, $context);
        $status = (int) explode(' ', $http_response_header[0] ?? 'HTTP/1.1 0')[1];
        if ($status >= 300) {
            throw new \RuntimeException("$method $path answered $status: $body");
        }
        return $body === '' ? [] : json_decode($body, true, 512, JSON_THROW_ON_ERROR);
    }

    public function testTheWebhookReceiverExampleVerifiesRealDeliveriesAlsoAfterASecretRotation(): void
    {
        $log = tempnam(sys_get_temp_dir(), 'postbus-webhook-receiver-');
        $router = __DIR__ . '/../../examples/webhook-receiver.php';
        $port = LocalServer::freePort();
        $webhook = self::manage('POST', '/v1/webhooks', ['url' => "http://127.0.0.1:$port/", 'events' => ['message.sent'], 'project_id' => self::project()]);
        $sendAndSeeVerified = static function () use ($log): void {
            $accepted = self::sdk()->emails->send(self::project(), self::$env['POSTBUS_EMAIL_KEY'], ['email' => self::recipient('webhook')]);
            // The receiver logs the event only after Webhook::verify() accepted it.
            self::eventually('the verified message.sent webhook', static fn (): ?bool => str_contains((string) file_get_contents($log), "Postbus message.sent for message {$accepted['message_id']}") ? true : null);
        };

        try {
            $receiver = new LocalServer($router, ['POSTBUS_WEBHOOK_SECRET' => $webhook['secret']], $log, $port);
            $sendAndSeeVerified();
            $receiver->stop();

            // After a rotation Postbus signs with the old and the new secret: a receiver that holds only the new one verifies.
            $rotated = self::manage('POST', "/v1/webhooks/{$webhook['id']}/rotate-secret");
            self::assertNotSame($webhook['secret'], $rotated['secret']);
            $receiver = new LocalServer($router, ['POSTBUS_WEBHOOK_SECRET' => $rotated['secret']], $log, $port);
            $sendAndSeeVerified();
            self::assertStringNotContainsString('Refused a webhook', (string) file_get_contents($log));
        } finally {
            if (isset($receiver)) {
                $receiver->stop();
            }
            self::manage('DELETE', "/v1/webhooks/{$webhook['id']}");
            @unlink($log);
        }
    }

    public function testTheSendExampleRunsAgainstTheStack(): void
    {
        $email = self::recipient('example');
        $env = [
            'POSTBUS_BASE_URL' => self::$env['POSTBUS_BASE_URL'],
            'POSTBUS_CLIENT_ID' => self::$env['POSTBUS_CLIENT_ID'],
            'POSTBUS_API_KEY' => self::$env['POSTBUS_API_KEY'],
            'POSTBUS_PROJECT_ID' => self::project(),
            'POSTBUS_EMAIL_KEY' => self::$env['POSTBUS_EMAIL_KEY'],
            'PATH' => (string) getenv('PATH'),
        ];
        $process = proc_open([PHP_BINARY, __DIR__ . '/../../examples/send.php', $email, 'Ada'], [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, $env);
        self::assertIsResource($process);
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        $exit = proc_close($process);

        self::assertSame(0, $exit, $out . $err);
        self::assertMatchesRegularExpression('/message_id: (msg_\w+)/', $out);
        preg_match('/message_id: (msg_\w+)/', $out, $m);
        $message = self::eventually('the message of the example', static fn (): ?array => self::full()->messages->get(self::project(), $m[1]));
        self::assertSame($email, $message['email']);
    }
}
