import type { Knex } from 'knex';

// Files uploaded through Polar's three-step flow (create, PUT the parts, complete): downloadables' files, product
// medias and organization avatars. The bytes live under TILL_FILES_DIR at a location made of ids only; `path` is
// the storage key shown on the wire, never a filesystem path.

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('files', (t) => {
    t.uuid('id').primary();
    t.string('organization_id', 32).notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('path').notNullable();
    t.string('mime_type', 255).notNullable();
    t.bigInteger('size').notNullable();
    // downloadable | product_media | organization_avatar
    t.string('service', 32).notNullable();
    t.text('version').nullable();
    // The multipart upload's id, which the completion must name (Polar's `upload.id`).
    t.string('upload_id', 64).notNullable();
    // As the uploader announced them at creation, then as computed from the bytes at completion.
    t.string('checksum_sha256_base64', 64).nullable();
    t.string('checksum_sha256_hex', 64).nullable();
    // S3's multipart ETag: MD5 of the parts' MD5s, then "-<parts>".
    t.string('checksum_etag', 64).nullable();
    t.boolean('is_uploaded').notNullable().defaultTo(false);
    t.timestamp('last_modified_at', { useTz: true }).nullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('modified_at', { useTz: true }).nullable();
    // Soft deletion keeps the row so references from products and benefits never dangle; the bytes are removed.
    t.timestamp('deleted_at', { useTz: true }).nullable();
    t.index(['organization_id', 'created_at']);
    t.index(['is_uploaded', 'created_at']);
  });
  await knex.schema.createTable('file_upload_parts', (t) => {
    t.uuid('file_id').notNullable().references('id').inTable('files').onDelete('CASCADE');
    t.integer('number').notNullable();
    t.bigInteger('chunk_start').notNullable();
    t.bigInteger('chunk_end').notNullable();
    t.string('checksum_sha256_base64', 64).nullable();
    // Set once the part's bytes have arrived: the MD5 hex S3 would answer as the part's ETag.
    t.string('etag', 64).nullable();
    t.timestamp('uploaded_at', { useTz: true }).nullable();
    t.primary(['file_id', 'number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('file_upload_parts');
  await knex.schema.dropTable('files');
}
