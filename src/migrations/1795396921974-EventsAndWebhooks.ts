import { MigrationInterface, QueryRunner } from "typeorm";

export class EventsAndWebhooks1795396921974 implements MigrationInterface {
    name = 'EventsAndWebhooks1795396921974'

    public async up(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`CREATE TABLE \`event\` (\`id\` int NOT NULL AUTO_INCREMENT, \`public_id\` varchar(36) NOT NULL, \`organization_id\` int NOT NULL, \`group_id\` int NOT NULL, \`type\` varchar(40) NOT NULL, \`data\` text NOT NULL, \`created_at\` datetime(3) NOT NULL, \`dispatched_at\` datetime(3) NULL, UNIQUE INDEX \`IDX_b5d78e4b7a678076853523499e\` (\`public_id\`), INDEX \`IDX_42973c16a316367042ca410bc5\` (\`dispatched_at\`, \`id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`webhook_endpoint\` (\`id\` int NOT NULL AUTO_INCREMENT, \`organization_id\` int NOT NULL, \`url\` varchar(2000) NOT NULL, \`secret\` varchar(100) NOT NULL, \`event_types\` text NOT NULL, \`group_ids\` text NULL, \`active\` tinyint NOT NULL DEFAULT 1, \`disabled_reason\` varchar(255) NULL, \`created_at\` datetime(3) NOT NULL, INDEX \`IDX_e5800fed79898bb7202e931227\` (\`organization_id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`webhook_delivery\` (\`id\` int NOT NULL AUTO_INCREMENT, \`event_id\` int NOT NULL, \`endpoint_id\` int NOT NULL, \`state\` varchar(10) NOT NULL, \`attempt_count\` int NOT NULL DEFAULT '0', \`next_attempt_at\` datetime(3) NOT NULL, \`created_at\` datetime(3) NOT NULL, \`delivered_at\` datetime(3) NULL, INDEX \`IDX_a1bc8e4b7660989684fec1340e\` (\`endpoint_id\`, \`id\`), INDEX \`IDX_fd45bd558b4faee1c156a0eedd\` (\`state\`, \`next_attempt_at\`), UNIQUE INDEX \`IDX_9ed7554dd88c137ab0eab5c7f0\` (\`event_id\`, \`endpoint_id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`CREATE TABLE \`webhook_attempt\` (\`id\` int NOT NULL AUTO_INCREMENT, \`delivery_id\` int NOT NULL, \`attempted_at\` datetime(3) NOT NULL, \`status_code\` int NULL, \`duration_ms\` int NOT NULL, \`error\` varchar(500) NULL, INDEX \`IDX_ad328b621ba7d360f8f2a8e92a\` (\`delivery_id\`, \`id\`), PRIMARY KEY (\`id\`)) ENGINE=InnoDB`);
        await queryRunner.query(`ALTER TABLE \`email_record\` ADD \`message_id\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` ADD \`message_id\` varchar(100) NULL`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` ADD \`attempt_count\` int NOT NULL DEFAULT '0'`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` ADD \`next_attempt_at\` datetime(3) NULL`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` ADD \`last_error\` varchar(500) NULL`);
        await queryRunner.query(`DROP INDEX \`IDX_35b9d9b1b85fa938f7bdfa61af\` ON \`outbox_email\``);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` CHANGE \`state\` \`state\` varchar(10) NOT NULL DEFAULT 'queued'`);
        // Hand-added: the outbox's "pending" is now called "queued", as the email history shows it.
        await queryRunner.query(`UPDATE \`outbox_email\` SET \`state\` = 'queued' WHERE \`state\` = 'pending'`);
        await queryRunner.query(`CREATE INDEX \`IDX_4fc15ff05f1dbb37b54e8112d4\` ON \`email_record\` (\`message_id\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_a5c7f7dd38b5c9e221faa9530d\` ON \`outbox_email\` (\`message_id\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_4dd46698d2fa084446649c5dce\` ON \`outbox_email\` (\`state\`, \`next_attempt_at\`)`);
        await queryRunner.query(`CREATE INDEX \`IDX_35b9d9b1b85fa938f7bdfa61af\` ON \`outbox_email\` (\`state\`, \`created_at\`)`);
        await queryRunner.query(`ALTER TABLE \`webhook_endpoint\` ADD CONSTRAINT \`FK_e5800fed79898bb7202e9312276\` FOREIGN KEY (\`organization_id\`) REFERENCES \`organization\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`webhook_delivery\` ADD CONSTRAINT \`FK_b723a573cd78b4cff3404153ad1\` FOREIGN KEY (\`event_id\`) REFERENCES \`event\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`webhook_delivery\` ADD CONSTRAINT \`FK_f53f5aec02217a54927b13e39d9\` FOREIGN KEY (\`endpoint_id\`) REFERENCES \`webhook_endpoint\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
        await queryRunner.query(`ALTER TABLE \`webhook_attempt\` ADD CONSTRAINT \`FK_d7ed48c4841159bfd6bdee166ea\` FOREIGN KEY (\`delivery_id\`) REFERENCES \`webhook_delivery\`(\`id\`) ON DELETE CASCADE ON UPDATE NO ACTION`);
    }

    public async down(queryRunner: QueryRunner): Promise<void> {
        await queryRunner.query(`ALTER TABLE \`webhook_attempt\` DROP FOREIGN KEY \`FK_d7ed48c4841159bfd6bdee166ea\``);
        await queryRunner.query(`ALTER TABLE \`webhook_delivery\` DROP FOREIGN KEY \`FK_f53f5aec02217a54927b13e39d9\``);
        await queryRunner.query(`ALTER TABLE \`webhook_delivery\` DROP FOREIGN KEY \`FK_b723a573cd78b4cff3404153ad1\``);
        await queryRunner.query(`ALTER TABLE \`webhook_endpoint\` DROP FOREIGN KEY \`FK_e5800fed79898bb7202e9312276\``);
        await queryRunner.query(`DROP INDEX \`IDX_35b9d9b1b85fa938f7bdfa61af\` ON \`outbox_email\``);
        await queryRunner.query(`DROP INDEX \`IDX_4dd46698d2fa084446649c5dce\` ON \`outbox_email\``);
        await queryRunner.query(`DROP INDEX \`IDX_a5c7f7dd38b5c9e221faa9530d\` ON \`outbox_email\``);
        await queryRunner.query(`DROP INDEX \`IDX_4fc15ff05f1dbb37b54e8112d4\` ON \`email_record\``);
        await queryRunner.query(`UPDATE \`outbox_email\` SET \`state\` = 'pending' WHERE \`state\` = 'queued'`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` CHANGE \`state\` \`state\` varchar(10) NOT NULL DEFAULT 'pending'`);
        await queryRunner.query(`CREATE INDEX \`IDX_35b9d9b1b85fa938f7bdfa61af\` ON \`outbox_email\` (\`state\`, \`created_at\`)`);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` DROP COLUMN \`last_error\``);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` DROP COLUMN \`next_attempt_at\``);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` DROP COLUMN \`attempt_count\``);
        await queryRunner.query(`ALTER TABLE \`outbox_email\` DROP COLUMN \`message_id\``);
        await queryRunner.query(`ALTER TABLE \`email_record\` DROP COLUMN \`message_id\``);
        await queryRunner.query(`DROP INDEX \`IDX_ad328b621ba7d360f8f2a8e92a\` ON \`webhook_attempt\``);
        await queryRunner.query(`DROP TABLE \`webhook_attempt\``);
        await queryRunner.query(`DROP INDEX \`IDX_9ed7554dd88c137ab0eab5c7f0\` ON \`webhook_delivery\``);
        await queryRunner.query(`DROP INDEX \`IDX_fd45bd558b4faee1c156a0eedd\` ON \`webhook_delivery\``);
        await queryRunner.query(`DROP INDEX \`IDX_a1bc8e4b7660989684fec1340e\` ON \`webhook_delivery\``);
        await queryRunner.query(`DROP TABLE \`webhook_delivery\``);
        await queryRunner.query(`DROP INDEX \`IDX_e5800fed79898bb7202e931227\` ON \`webhook_endpoint\``);
        await queryRunner.query(`DROP TABLE \`webhook_endpoint\``);
        await queryRunner.query(`DROP INDEX \`IDX_42973c16a316367042ca410bc5\` ON \`event\``);
        await queryRunner.query(`DROP INDEX \`IDX_b5d78e4b7a678076853523499e\` ON \`event\``);
        await queryRunner.query(`DROP TABLE \`event\``);
    }

}
