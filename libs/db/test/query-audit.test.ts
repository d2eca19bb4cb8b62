import { Schema } from 'mongoose';
import { connectDb, growing, offRequestPath, onRequestPath, UnboundedQueryError, type Connection } from '@postbus/db';
import { defaultMongoUrl, uniqueName } from '@postbus/testing';

describe('the query audit of growing collections', () => {
  let connection: Connection;
  let Message: ReturnType<typeof model>;
  const model = (c: Connection) =>
    c.model<{ _id: string; projectId: string }>(
      'Message',
      growing(new Schema({ _id: String, projectId: String }, { collection: 'messages' })),
    );

  beforeAll(async () => {
    connection = await connectDb({ url: defaultMongoUrl(), dbName: uniqueName('audit') });
    Message = model(connection);
    await Message.create({ _id: 'm1', projectId: 'p1' });
  });
  afterAll(async () => {
    await connection.dropDatabase();
    await connection.close();
  });

  it('lets a request read, update and delete by exact _id', async () => {
    await onRequestPath('strict', async () => {
      expect((await Message.findById('m1').lean().exec())?.projectId).toBe('p1');
      await Message.updateOne({ _id: 'm1' }, { $set: { projectId: 'p1' } }).exec();
      await Message.deleteOne({ _id: 'missing' }).exec();
    });
  });

  it('refuses on a request path a filter the embedded store would answer by scanning', async () => {
    const queries: Array<() => Promise<unknown>> = [
      () => Message.find({ projectId: 'p1' }).exec(),
      () => Message.findOne({ _id: 'm1', projectId: 'p1' }).exec(),
      () => Message.find({ _id: { $in: ['m1'] } }).exec(),
      () => Message.deleteMany({ projectId: 'p1' }).exec(),
      () => Message.countDocuments().exec(),
      () => Message.aggregate([{ $match: { projectId: 'p1' } }]).exec(),
    ];
    for (const query of queries) await expect(onRequestPath('strict', query)).rejects.toBeInstanceOf(UnboundedQueryError);
  });

  it('checks nothing off the request path, when turned off, or for background work a request starts', async () => {
    expect(await Message.find({ projectId: 'p1' }).exec()).toHaveLength(1);
    expect(await onRequestPath('off', () => Message.find({ projectId: 'p1' }).exec())).toHaveLength(1);
    expect(await onRequestPath('strict', () => offRequestPath(() => Message.find({ projectId: 'p1' }).exec()))).toHaveLength(1);
  });
});
