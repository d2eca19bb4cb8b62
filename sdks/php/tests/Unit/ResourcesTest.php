<?php

declare(strict_types=1);

namespace Postbus\Tests\Unit;

use PHPUnit\Framework\TestCase;
use Postbus\Attachment;
use Postbus\Client;
use Postbus\Exception\ConflictException;
use Postbus\Http\Request;
use Postbus\Http\Response;
use Postbus\Tests\Support\ClientFactory;
use Postbus\Tests\Support\FakeTransport;

/** Each method sends the gateway's route and body. */
final class ResourcesTest extends TestCase
{
    private ClientFactory $f;

    protected function setUp(): void
    {
        $this->f = ClientFactory::answering(array_fill(0, 5, FakeTransport::json(200, ['status' => 'accepted', 'request_id' => 'req_1'])));
    }

    private function only(): Request
    {
        self::assertCount(1, $this->f->transport->requests);
        return $this->f->transport->requests[0];
    }

    /** @return mixed the decoded body */
    private static function body(Request $request): mixed
    {
        return json_decode((string) $request->body, false, 512, JSON_THROW_ON_ERROR);
    }

    public function testSendPostsUserAndDataToTheEmailsSendRoute(): void
    {
        $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com', 'name' => 'Ada'], ['code' => '4711']);

        $r = $this->only();
        self::assertSame('POST', $r->method);
        self::assertSame('https://postbus.test/v1/projects/p1/emails/welcome/send', $r->url);
        self::assertSame('{"user":{"email":"ada@example.com","name":"Ada"},"data":{"code":"4711"}}', $r->body);
        self::assertSame('application/json', $r->header('Content-Type'));
    }

    public function testSendWithoutDataLeavesDataOut(): void
    {
        $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com']);

        self::assertSame('{"user":{"email":"ada@example.com"}}', $this->only()->body);
    }

    public function testSendCarriesTheMessageOptionsInTheBodyAndTheCallOptionsAsHeaders(): void
    {
        $this->f->client->emails->send('p1', 'receipt', ['email' => 'ada@example.com'], [], [
            'reply_to' => 'help@shop.example',
            'cc' => ['accounts@shop.example'],
            'bcc' => ['archive@shop.example'],
            'headers' => ['X-Order-Id' => '4711'],
            'tags' => ['receipt'],
            'metadata' => [],
            'idempotency_key' => 'order-4711',
        ]);

        $r = $this->only();
        self::assertSame(
            '{"user":{"email":"ada@example.com"},"reply_to":"help@shop.example","cc":["accounts@shop.example"],"bcc":["archive@shop.example"],"headers":{"X-Order-Id":"4711"},"tags":["receipt"],"metadata":{}}',
            $r->body,
        );
        self::assertSame('order-4711', $r->header('Idempotency-Key'));
    }

    public function testSendCarriesAttachmentsFromAPathAndFromBytesInBase64(): void
    {
        $path = tempnam(sys_get_temp_dir(), 'pb');
        file_put_contents($path, "%PDF-1.4 invoice");
        try {
            $this->f->client->emails->send('p1', 'receipt', ['email' => 'ada@example.com'], [], [
                'attachments' => [
                    Attachment::fromPath($path, 'invoice.pdf'),
                    Attachment::fromBytes("\x89PNG", 'logo.png', 'image/png', 'logo'),
                ],
            ]);
        } finally {
            unlink($path);
        }

        self::assertSame(
            '{"user":{"email":"ada@example.com"},"attachments":[{"filename":"invoice.pdf","content":"' . base64_encode('%PDF-1.4 invoice')
            . '"},{"filename":"logo.png","content":"' . base64_encode("\x89PNG") . '","content_type":"image/png","content_id":"logo"}]}',
            $this->only()->body,
        );
    }

    public function testAnAttachmentThatCannotBeReadIsRefusedBeforeAnyRequest(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        Attachment::fromPath('/nonexistent/invoice.pdf');
    }

    public function testSendBatchCarriesEachMessagesAttachments(): void
    {
        $this->f->client->emails->sendBatch('p1', [
            ['email_key' => 'welcome', 'user' => ['email' => 'ada@example.com'], 'attachments' => [Attachment::fromBytes('a', 'a.txt')]],
        ]);

        self::assertSame(
            '{"messages":[{"email_key":"welcome","user":{"email":"ada@example.com"},"attachments":[{"filename":"a.txt","content":"YQ=="}]}]}',
            $this->only()->body,
        );
    }

    public function testSendContentPostsTheMessageToTheEmailsSendRouteWithTheCallOptionsAsHeaders(): void
    {
        $this->f->client->emails->sendContent('p 1', [
            'from' => 'Acme Billing <billing@acme.example>',
            'to' => ['ada@example.com', 'bea@example.com'],
            'subject' => 'Your receipt',
            'html' => '<p>Thanks</p>',
            'text' => 'Thanks',
            'user' => ['email' => 'ada@example.com', 'name' => 'Ada'],
            'reply_to' => 'help@acme.example',
            'cc' => ['accounts@acme.example'],
            'bcc' => ['archive@acme.example'],
            'headers' => ['X-Order-Id' => '4711'],
            'tags' => ['receipt'],
            'metadata' => [],
            'track_opens' => false,
            'track_clicks' => true,
        ], ['idempotency_key' => 'receipt-4711', 'max_retries' => 0]);

        $r = $this->only();
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p%201/emails/send'], [$r->method, $r->url]);
        self::assertSame(
            '{"from":"Acme Billing <billing@acme.example>","to":["ada@example.com","bea@example.com"],"subject":"Your receipt","html":"<p>Thanks</p>","text":"Thanks",'
            . '"user":{"email":"ada@example.com","name":"Ada"},"reply_to":"help@acme.example","cc":["accounts@acme.example"],"bcc":["archive@acme.example"],'
            . '"headers":{"X-Order-Id":"4711"},"tags":["receipt"],"metadata":{},"track_opens":false,"track_clicks":true}',
            $r->body,
        );
        self::assertSame('receipt-4711', $r->header('Idempotency-Key'));
        self::assertSame('application/json', $r->header('Content-Type'));
    }

    public function testSendContentWithOneRecipientGetsAGeneratedIdempotencyKey(): void
    {
        $this->f->client->emails->sendContent('p1', ['to' => 'ada@example.com', 'subject' => 'Hi', 'text' => 'Hello']);

        $r = $this->only();
        self::assertSame('{"to":"ada@example.com","subject":"Hi","text":"Hello"}', $r->body);
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', (string) $r->header('Idempotency-Key'));
    }

    public function testSendContentCarriesAttachmentsInBase64AndSendAtAsRfc3339(): void
    {
        $path = tempnam(sys_get_temp_dir(), 'pb');
        file_put_contents($path, "%PDF-1.4 invoice");
        try {
            $this->f->client->emails->sendContent('p1', [
                'to' => 'ada@example.com',
                'subject' => 'Your invoice',
                'html' => '<img src="cid:logo">',
                'attachments' => [
                    Attachment::fromPath($path, 'invoice.pdf'),
                    Attachment::fromBytes("\x89PNG", 'logo.png', 'image/png', 'logo'),
                ],
                'send_at' => new \DateTimeImmutable('2026-12-01T09:00:00+01:00'),
            ]);
        } finally {
            unlink($path);
        }

        self::assertSame(
            '{"to":"ada@example.com","subject":"Your invoice","html":"<img src=\"cid:logo\">","attachments":[{"filename":"invoice.pdf","content":"' . base64_encode('%PDF-1.4 invoice')
            . '"},{"filename":"logo.png","content":"' . base64_encode("\x89PNG") . '","content_type":"image/png","content_id":"logo"}],"send_at":"2026-12-01T09:00:00.000+01:00"}',
            $this->only()->body,
        );
    }

    public function testSendContentTakesSendAtAsAString(): void
    {
        $this->f->client->emails->sendContent('p1', ['to' => 'ada@example.com', 'subject' => 'Later', 'text' => 'x', 'send_at' => '2026-12-24T18:00:00Z']);

        self::assertSame('{"to":"ada@example.com","subject":"Later","text":"x","send_at":"2026-12-24T18:00:00Z"}', $this->only()->body);
    }

    public function testACallOptionInTheContentMessageIsRefusedBeforeAnyRequest(): void
    {
        try {
            $this->f->client->emails->sendContent('p1', ['to' => 'ada@example.com', 'subject' => 'Hi', 'text' => 'x', 'idempotency_key' => 'k']);
            self::fail('no exception');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('idempotency_key', $e->getMessage());
        }
        self::assertSame([], $this->f->transport->requests);
    }

    public function testAMessageFieldAmongTheContentCallOptionsIsRefusedBeforeAnyRequest(): void
    {
        try {
            $this->f->client->emails->sendContent('p1', ['to' => 'ada@example.com', 'subject' => 'Hi', 'text' => 'x'], ['tags' => ['receipt']]);
            self::fail('no exception');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('tags', $e->getMessage());
        }
        self::assertSame([], $this->f->transport->requests);
    }

    public function testSendBatchTakesContentItemsBesideTemplateItems(): void
    {
        $this->f->client->emails->sendBatch('p1', [
            ['email_key' => 'welcome', 'user' => ['email' => 'ada@example.com']],
            [
                'to' => ['bob@example.com'],
                'subject' => 'Your receipt',
                'html' => '<p>Thanks</p>',
                'headers' => [],
                'attachments' => [Attachment::fromBytes('a', 'a.txt')],
                'send_at' => new \DateTimeImmutable('2026-12-01T08:00:00Z'),
            ],
        ]);

        self::assertSame(
            '{"messages":[{"email_key":"welcome","user":{"email":"ada@example.com"}},'
            . '{"to":["bob@example.com"],"subject":"Your receipt","html":"<p>Thanks</p>","headers":{},"attachments":[{"filename":"a.txt","content":"YQ=="}],"send_at":"2026-12-01T08:00:00.000+00:00"}]}',
            $this->only()->body,
        );
    }

    public function testSendAtIsSentAsRfc3339AndCancelPostsToTheMessage(): void
    {
        $at = new \DateTimeImmutable('2026-12-01T09:00:00+01:00');
        $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com'], [], ['send_at' => $at]);
        $this->f->client->emails->sendBatch('p1', [['email_key' => 'welcome', 'user' => ['email' => 'bob@example.com'], 'send_at' => $at]]);
        $this->f->client->messages->cancel('p1', 'msg_1');

        [$send, $batch, $cancel] = $this->f->transport->requests;
        self::assertSame('{"user":{"email":"ada@example.com"},"send_at":"2026-12-01T09:00:00.000+01:00"}', $send->body);
        self::assertStringContainsString('"send_at":"2026-12-01T09:00:00.000+01:00"', (string) $batch->body);
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/messages/msg_1/cancel'], [$cancel->method, $cancel->url]);
    }

    public function testSendBatchPostsEveryMessageWithObjectsKeptObjects(): void
    {
        $this->f->client->emails->sendBatch('p1', [
            ['email_key' => 'welcome', 'user' => ['email' => 'ada@example.com'], 'data' => []],
            ['email_key' => 'receipt', 'user' => ['email' => 'bob@example.com'], 'metadata' => ['order' => '1']],
        ], ['idempotency_key' => 'batch-1']);

        $r = $this->only();
        self::assertSame('https://postbus.test/v1/projects/p1/emails/batch', $r->url);
        self::assertSame(
            '{"messages":[{"email_key":"welcome","user":{"email":"ada@example.com"},"data":{}},{"email_key":"receipt","user":{"email":"bob@example.com"},"metadata":{"order":"1"}}]}',
            $r->body,
        );
        self::assertSame('batch-1', $r->header('Idempotency-Key'));
    }

    public function testEveryRequestCarriesCredentialsAcceptAndUserAgent(): void
    {
        $this->f->client->users->get('p1', ['user_id' => 'u1']);

        $r = $this->only();
        self::assertSame('Basic ' . base64_encode('client_1:key_secret'), $r->header('Authorization'));
        self::assertSame('application/json', $r->header('Accept'));
        self::assertStringStartsWith('postbus-php/' . Client::VERSION, (string) $r->header('User-Agent'));
        self::assertNull($r->body);
        self::assertNull($r->header('Content-Type'));
    }

    public function testPathSegmentsAreUrlEncoded(): void
    {
        $this->f->client->users->updateByUserId('p 1', 'crm/42?x=ä', ['plan' => 'pro']);

        $r = $this->only();
        self::assertSame('PATCH', $r->method);
        self::assertSame('https://postbus.test/v1/projects/p%201/users/crm%2F42%3Fx%3D%C3%A4', $r->url);
        self::assertSame('{"fields":{"plan":"pro"}}', $r->body);
    }

    public function testCreateUser(): void
    {
        $this->f->client->users->create('p1', ['email' => 'ada@example.com', 'user_id' => 'u1', 'fields' => ['plan' => 'pro']]);

        $r = $this->only();
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/users'], [$r->method, $r->url]);
        self::assertSame('{"email":"ada@example.com","user_id":"u1","fields":{"plan":"pro"}}', $r->body);
    }

    public function testUpdateByEmailSendsEmailAndFieldsAndEmptyFieldsAsAnObject(): void
    {
        $this->f->client->users->updateByEmail('p1', 'ada@example.com', []);

        $r = $this->only();
        self::assertSame(['PATCH', 'https://postbus.test/v1/projects/p1/users/by-email'], [$r->method, $r->url]);
        self::assertSame('{"email":"ada@example.com","fields":{}}', $r->body);
    }

    public function testUnsubscribeAndErase(): void
    {
        $this->f->client->users->unsubscribe('p1', ['email' => 'ada@example.com', 'reason' => 'asked']);
        $this->f->client->users->erase('p1', ['user_id' => 'u1']);

        [$unsubscribe, $erase] = $this->f->transport->requests;
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/users/unsubscribe'], [$unsubscribe->method, $unsubscribe->url]);
        self::assertEquals((object) ['email' => 'ada@example.com', 'reason' => 'asked'], self::body($unsubscribe));
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/users/erase'], [$erase->method, $erase->url]);
        self::assertSame('{"user_id":"u1"}', $erase->body);
    }

    public function testRecordAndListPayments(): void
    {
        $this->f->client->payments->record('p1', ['email' => 'ada@example.com', 'payment_id' => 'pay_1', 'amount' => 1999, 'currency' => 'EUR', 'metadata' => []]);
        $this->f->client->payments->list('p1', ['email' => 'ada+vip@example.com', 'limit' => 10]);
        $this->f->client->payments->revenue('p1', '2026-11-01', '2026-11-30');

        [$record, $list, $revenue] = $this->f->transport->requests;
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/payments'], [$record->method, $record->url]);
        self::assertSame('{"email":"ada@example.com","payment_id":"pay_1","amount":1999,"currency":"EUR","metadata":{}}', $record->body);
        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/payments?email=ada%2Bvip%40example.com&limit=10'], [$list->method, $list->url]);
        self::assertSame('https://postbus.test/v1/projects/p1/analytics/revenue?from=2026-11-01&to=2026-11-30', $revenue->url);
    }

    public function testReadUserByEmailOrUserId(): void
    {
        $this->f->client->users->get('p1', ['email' => 'ada@example.com']);
        $this->f->client->users->get('p1', ['user_id' => 'u 1']);

        [$byEmail, $byId] = $this->f->transport->requests;
        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/users?email=ada%40example.com'], [$byEmail->method, $byEmail->url]);
        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/users/u%201'], [$byId->method, $byId->url]);
    }

    public function testReadUserNeedsEmailOrUserId(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->f->client->users->get('p1', ['name' => 'Ada']);
    }

    public function testListAndGetMessages(): void
    {
        $this->f->client->messages->list('p1', ['email' => 'ada@example.com', 'status' => 'sent', 'cursor' => null]);
        $this->f->client->messages->get('p1', 'msg_1');

        [$list, $get] = $this->f->transport->requests;
        self::assertSame('https://postbus.test/v1/projects/p1/messages?email=ada%40example.com&status=sent', $list->url);
        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/messages/msg_1'], [$get->method, $get->url]);
    }

    public function testListTestMessagesSendsTestAsTrue(): void
    {
        $this->f->client->messages->list('p1', ['test' => true]);

        self::assertSame('https://postbus.test/v1/projects/p1/messages?test=true', $this->only()->url);
    }

    public function testListAddAndRemoveSuppressions(): void
    {
        $this->f->client->suppressions->list('p1', ['reason' => 'manual', 'email' => 'ada+vip@example.com', 'limit' => 10, 'cursor' => null]);
        $this->f->client->suppressions->list('p1', ['cursor' => 'c2']);
        $this->f->client->suppressions->add('p1', 'ada+vip@example.com');
        $this->f->client->suppressions->remove('p1', 'ada+vip/x@example.com');

        [$list, $next, $add, $remove] = $this->f->transport->requests;
        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/suppressions?reason=manual&email=ada%2Bvip%40example.com&limit=10'], [$list->method, $list->url]);
        self::assertSame('https://postbus.test/v1/projects/p1/suppressions?cursor=c2', $next->url);
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/suppressions'], [$add->method, $add->url]);
        self::assertSame('{"email":"ada+vip@example.com","reason":"manual"}', $add->body);
        self::assertMatchesRegularExpression('/^[0-9a-f]{32}$/', (string) $add->header('Idempotency-Key'));
        // The email is one path segment: "+", "/" and "@" are encoded.
        self::assertSame(['DELETE', 'https://postbus.test/v1/projects/p1/suppressions/ada%2Bvip%2Fx%40example.com'], [$remove->method, $remove->url]);
        self::assertNull($remove->body);
        self::assertNull($remove->header('Idempotency-Key'));
    }

    public function testValidateTemplatePostsTheDraftWithEmptyDataAsAnObject(): void
    {
        $found = ['valid' => true, 'errors' => [], 'rendered' => ['subject' => 'Hi Ada', 'html' => '<p>Hi</p>', 'text' => 'Hi'], 'variables' => ['user.name']];
        $f = ClientFactory::answering([FakeTransport::json(200, $found)]);

        $answer = $f->client->templates->validate('p 1', ['subject' => 'Hi {{user.name}}', 'user' => ['name' => 'Ada'], 'data' => []]);

        $request = $f->transport->requests[0];
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p%201/templates/validate'], [$request->method, $request->url]);
        self::assertSame('{"subject":"Hi {{user.name}}","user":{"name":"Ada"},"data":{}}', $request->body);
        self::assertSame($found, $answer);
    }

    public function testSendCarriesTheLanguageOfTheVariantToSend(): void
    {
        $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com'], [], ['language' => 'pt-BR']);

        self::assertSame('{"user":{"email":"ada@example.com"},"language":"pt-BR"}', $this->only()->body);
    }

    public function testTemplatesCreateSaveADraftPublishItAndReadTheirVersionsOnTheirRoutes(): void
    {
        $template = ['id' => 't1', 'version' => 2, 'latest_version' => 2, 'published_version' => 1];
        $f = ClientFactory::answering([
            FakeTransport::json(201, $template),
            FakeTransport::json(200, $template),
            FakeTransport::json(200, ['data' => []]),
            FakeTransport::json(200, $template),
            FakeTransport::json(200, $template),
            FakeTransport::json(200, $template),
            FakeTransport::json(200, ['data' => [$template]]),
            new Response(204, [], ''),
        ]);
        $templates = $f->client->templates;
        $variants = [3 => ['language' => 'de', 'subject' => 'Hallo', 'html' => '<p>Hallo</p>', 'layout_id' => 'l1']];

        $templates->create('p1', ['name' => 'Welcome', 'subject' => 'Hi', 'html' => '<p>Hi</p>', 'layout_id' => 'l1', 'variants' => $variants]);
        $templates->save('p1', 't 1', ['name' => 'Welcome', 'subject' => 'Hi!', 'html' => '<mjml></mjml>', 'format' => 'mjml', 'draft' => true]);
        $templates->versions('p1', 't1');
        $published = $templates->publish('p1', 't1', 2);
        $templates->get('p1', 't1', 1);
        $templates->get('p1', 't1');
        $templates->list('p1');
        $templates->delete('p1', 't1');

        $sent = $f->transport->requests;
        self::assertSame([
            ['POST', 'https://postbus.test/v1/projects/p1/templates'],
            ['PUT', 'https://postbus.test/v1/projects/p1/templates/t%201'],
            ['GET', 'https://postbus.test/v1/projects/p1/templates/t1/versions'],
            ['POST', 'https://postbus.test/v1/projects/p1/templates/t1/versions/2/publish'],
            ['GET', 'https://postbus.test/v1/projects/p1/templates/t1?version=1'],
            ['GET', 'https://postbus.test/v1/projects/p1/templates/t1'],
            ['GET', 'https://postbus.test/v1/projects/p1/templates'],
            ['DELETE', 'https://postbus.test/v1/projects/p1/templates/t1'],
        ], array_map(static fn (Request $r): array => [$r->method, $r->url], $sent));
        self::assertSame(
            '{"name":"Welcome","subject":"Hi","html":"<p>Hi</p>","layout_id":"l1","variants":[{"language":"de","subject":"Hallo","html":"<p>Hallo</p>","layout_id":"l1"}]}',
            $sent[0]->body,
        );
        self::assertSame('{"name":"Welcome","subject":"Hi!","html":"<mjml></mjml>","format":"mjml","draft":true}', $sent[1]->body);
        self::assertNull($sent[1]->header('Idempotency-Key'));
        self::assertNull($sent[3]->body);
        self::assertNotNull($sent[3]->header('Idempotency-Key'));
        self::assertSame($template, $published);
    }

    public function testPreviewsTakeTheLanguageAndVersionAndSendEmptyUserAndDataAsObjects(): void
    {
        $rendered = ['subject' => 'Hallo Ada', 'html' => '<p>Hallo</p>', 'text' => 'Hallo'];
        $f = ClientFactory::answering([FakeTransport::json(200, $rendered), FakeTransport::json(200, $rendered)]);

        $answer = $f->client->templates->preview('p1', 't1', ['user' => ['name' => 'Ada'], 'data' => [], 'language' => 'de', 'version' => 3]);
        $f->client->templates->previewDraft('p1', [
            'subject' => 'Hi',
            'html' => '<p>Hi</p>',
            'variants' => ['de' => ['language' => 'de', 'subject' => 'Hallo', 'html' => '<p>Hallo</p>']],
            'user' => [],
            'language' => 'de-AT',
        ]);

        [$saved, $draft] = $f->transport->requests;
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/templates/t1/preview'], [$saved->method, $saved->url]);
        self::assertSame('{"user":{"name":"Ada"},"data":{},"language":"de","version":3}', $saved->body);
        self::assertSame(['POST', 'https://postbus.test/v1/projects/p1/template-preview'], [$draft->method, $draft->url]);
        self::assertSame(
            '{"subject":"Hi","html":"<p>Hi</p>","variants":[{"language":"de","subject":"Hallo","html":"<p>Hallo</p>"}],"user":{},"language":"de-AT"}',
            $draft->body,
        );
        self::assertSame($rendered, $answer);
    }

    public function testLayoutsAreSavedAndPublishedOnTheirRoutesAndADeleteRefusedIsAConflict(): void
    {
        $layout = ['id' => 'l1', 'version' => 1, 'latest_version' => 1, 'published_version' => 1];
        $f = ClientFactory::answering([
            FakeTransport::json(201, $layout),
            FakeTransport::json(200, $layout),
            FakeTransport::json(200, $layout),
            FakeTransport::json(200, ['data' => []]),
            FakeTransport::problem(409, 'layout-in-use', ['detail' => 'The layout is used by the published version of the template "Welcome"']),
        ]);
        $layouts = $f->client->layouts;

        $created = $layouts->create('p1', ['name' => 'Brand', 'html' => '<main>{{{content}}}</main>', 'text' => null]);
        $layouts->save('p1', 'l1', ['name' => 'Brand', 'html' => '<div>{{{content}}}</div>', 'draft' => true]);
        $layouts->publish('p1', 'l1', 2);
        $layouts->versions('p1', 'l1');
        try {
            $layouts->delete('p1', 'l1');
            self::fail('no exception');
        } catch (ConflictException $e) {
            self::assertSame('layout-in-use', $e->getSlug());
        }

        $sent = $f->transport->requests;
        self::assertSame([
            ['POST', 'https://postbus.test/v1/projects/p1/layouts'],
            ['PUT', 'https://postbus.test/v1/projects/p1/layouts/l1'],
            ['POST', 'https://postbus.test/v1/projects/p1/layouts/l1/versions/2/publish'],
            ['GET', 'https://postbus.test/v1/projects/p1/layouts/l1/versions'],
            ['DELETE', 'https://postbus.test/v1/projects/p1/layouts/l1'],
        ], array_map(static fn (Request $r): array => [$r->method, $r->url], $sent));
        self::assertSame('{"name":"Brand","html":"<main>{{{content}}}</main>","text":null}', $sent[0]->body);
        self::assertSame('{"name":"Brand","html":"<div>{{{content}}}</div>","draft":true}', $sent[1]->body);
        self::assertSame($layout, $created);
    }

    public function testListSuppressionsWithoutFiltersSendsNoQuery(): void
    {
        $this->f->client->suppressions->list('p1');

        self::assertSame(['GET', 'https://postbus.test/v1/projects/p1/suppressions'], [$this->only()->method, $this->only()->url]);
    }

    public function testABaseUrlWithTrailingSlashOrV1IsTolerated(): void
    {
        foreach (['https://postbus.test/', 'https://postbus.test/v1', 'https://postbus.test/v1/'] as $base) {
            $f = ClientFactory::answering([FakeTransport::json(200, ['data' => []])], ['base_url' => $base]);
            $f->client->messages->list('p1');
            self::assertSame('https://postbus.test/v1/projects/p1/messages', $f->transport->requests[0]->url, $base);
        }
    }

    public function testABodyThatCannotBeJsonIsRefusedBeforeAnythingIsSent(): void
    {
        try {
            $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com', 'name' => "\xB1\x31"]);
            self::fail('no exception');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('JSON', $e->getMessage());
        }
        self::assertSame([], $this->f->transport->requests);
    }

    public function testAMisspeltCallOptionIsRefusedBeforeAnythingIsSent(): void
    {
        try {
            $this->f->client->emails->send('p1', 'welcome', ['email' => 'ada@example.com'], [], ['idempotencyKey' => 'order-1']);
            self::fail('no exception');
        } catch (\InvalidArgumentException $e) {
            self::assertStringContainsString('idempotencyKey', $e->getMessage());
        }
        self::assertSame([], $this->f->transport->requests);
    }

    public function testAMisspeltOptionIsRefused(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        $this->expectExceptionMessage('max_retry');
        new Client('c', 'k', ['max_retry' => 1]);
    }
}
