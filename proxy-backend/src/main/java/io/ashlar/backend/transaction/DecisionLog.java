package io.ashlar.backend.transaction;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit decisions of two-phase commits, on local disk: a line {@code C <gid>} written and
 * fsynced before the first COMMIT PREPARED of a transaction (the decision is then durable), and a
 * line {@code F <gid>} once every data source committed it (not fsynced: a lost one only makes
 * the next start look for prepared transactions that are gone).
 *
 * <p>Each run of a proxy is an instance with an id of its own, in the gids it prepares, and a
 * log of its own in the directory, {@code <id>.log}, beside {@code <id>.lock}, which it holds
 * locked while it runs. A proxy that starts takes every log whose lock nobody holds (its instance
 * is gone: this proxy's previous run, or another proxy's that shared the directory), finishes
 * their in-doubt transactions ({@link TwoPhaseCommit#recover}) and deletes them. A decision the
 * log cannot show (its line torn by a crash) was never told to anybody: its transaction rolls
 * back.
 *
 * <p>Writes go through one thread that fsyncs once for every decision waiting (group commit): a
 * session's virtual thread parks meanwhile, its event loop runs on.
 */
final class DecisionLog implements CommitDecisions {

    private static final Logger LOG = LoggerFactory.getLogger(DecisionLog.class);

    /** A dead instance's log: its id, and the gids it decided to commit and did not see finished. */
    private record Taken(String instanceId, Set<String> committed, Path log, Path lockFile, FileChannel lockChannel, FileLock lock) {
        Orphan orphan() {
            return new Orphan(instanceId, committed, () -> forget(this));
        }
    }

    private record Entry(String line, CompletableFuture<Void> durable) {
    }

    private static final Entry STOP = new Entry("", null);

    private final Path directory;
    private final String instanceId;
    private final Path logFile;
    private final Path lockFile;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final FileChannel channel;
    private final List<Taken> taken;
    private final List<Orphan> orphans;
    private final LinkedBlockingQueue<Entry> queue = new LinkedBlockingQueue<>();
    /** Decided and not finished (the writer thread's only). */
    private final Set<String> pending = new HashSet<>();
    private final Thread writer;
    private volatile IOException failed;

    private DecisionLog(Path directory, String instanceId, Path lockFile, FileChannel lockChannel, FileLock lock,
                        FileChannel channel, List<Taken> taken) {
        this.directory = directory;
        this.instanceId = instanceId;
        this.logFile = directory.resolve(instanceId + ".log");
        this.lockFile = lockFile;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.channel = channel;
        this.taken = taken;
        List<Orphan> orphans = new ArrayList<>(taken.size());
        for (Taken each : taken) {
            orphans.add(each.orphan());
        }
        this.orphans = List.copyOf(orphans);
        this.writer = Thread.ofPlatform().daemon().name("ashlar-decision-log").start(this::write);
    }

    /** Opens a new instance's log in the directory (made if missing), taking the logs of dead instances there. */
    static DecisionLog open(Path directory) throws IOException {
        Files.createDirectories(directory);
        List<Taken> orphans = new ArrayList<>();
        try (DirectoryStream<Path> locks = Files.newDirectoryStream(directory, "*.lock")) {
            for (Path each : locks) {
                Taken orphan = adopt(directory, each);
                if (orphan != null) {
                    orphans.add(orphan);
                }
            }
        }
        SecureRandom random = new SecureRandom();
        while (true) {
            String id = Long.toString(random.nextLong() >>> 14, 36);
            Path lockFile = directory.resolve(id + ".lock");
            Path log = directory.resolve(id + ".log");
            if (Files.exists(lockFile) || Files.exists(log)) {
                continue;
            }
            FileChannel lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            FileLock lock = lockChannel.lock();
            FileChannel channel = FileChannel.open(log, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            forceDirectory(directory);
            return new DecisionLog(directory, id, lockFile, lockChannel, lock, channel, orphans);
        }
    }

    /** The log of a lock file nobody holds, read; null when its instance runs. */
    private static Taken adopt(Path directory, Path lockFile) throws IOException {
        String name = lockFile.getFileName().toString();
        String id = name.substring(0, name.length() - ".lock".length());
        FileChannel lockChannel;
        try {
            lockChannel = FileChannel.open(lockFile, StandardOpenOption.WRITE);
        } catch (IOException gone) {
            return null;
        }
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException heldHere) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            return null;
        }
        Path log = directory.resolve(id + ".log");
        Set<String> committed = new LinkedHashSet<>();
        if (Files.exists(log)) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            // Only whole lines: a line the crash cut short was never fsynced, so never acted on.
            for (String line : text.substring(0, end + 1).split("\n")) {
                if (line.startsWith("C ")) {
                    committed.add(line.substring(2));
                } else if (line.startsWith("F ")) {
                    committed.remove(line.substring(2));
                }
            }
        }
        return new Taken(id, committed, log, lockFile, lockChannel, lock);
    }

    @Override
    public String instanceId() {
        return instanceId;
    }

    @Override
    public String describe() {
        return directory.toAbsolutePath().toString();
    }

    /** The logs of dead instances found at start. */
    @Override
    public List<Orphan> orphans() {
        return orphans;
    }

    /** A dead instance's transactions are all finished: its log goes. */
    private static void forget(Taken orphan) {
        try {
            Files.deleteIfExists(orphan.log());
            Files.deleteIfExists(orphan.lockFile());
            orphan.lock().release();
            orphan.lockChannel().close();
        } catch (IOException e) {
            LOG.warn("could not delete the finished transaction log {}: {}", orphan.log(), e.toString());
        }
    }

    /** Makes the decision to commit {@code gid} durable; returns once it is on disk. */
    @Override
    public void commit(String gid) throws IOException {
        IOException broken = failed;
        if (broken != null) {
            throw broken;
        }
        CompletableFuture<Void> durable = new CompletableFuture<>();
        queue.add(new Entry("C " + gid + "\n", durable));
        try {
            durable.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while writing the commit decision", e);
        }
    }

    /** Every data source committed {@code gid}. */
    @Override
    public void finished(String gid) {
        queue.add(new Entry("F " + gid + "\n", null));
    }

    private void write() {
        List<Entry> batch = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        boolean stopping = false;
        while (!stopping) {
            try {
                batch.add(queue.take());
            } catch (InterruptedException e) {
                return;
            }
            queue.drainTo(batch);
            text.setLength(0);
            boolean force = false;
            for (Entry each : batch) {
                if (each == STOP) {
                    stopping = true;
                    continue;
                }
                text.append(each.line());
                String gid = each.line().substring(2, each.line().length() - 1);
                if (each.durable() != null) {
                    force = true;
                    pending.add(gid);
                } else {
                    pending.remove(gid);
                }
            }
            IOException error = failed;
            if (error == null && !text.isEmpty()) {
                try {
                    ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
                    while (bytes.hasRemaining()) {
                        channel.write(bytes);
                    }
                    if (force) {
                        channel.force(false);
                    }
                } catch (IOException e) {
                    // A decision that may not be on disk cannot be acted on; later ones neither.
                    LOG.error("the transaction log {} cannot be written: commits across data sources fail from now on", logFile, e);
                    failed = e;
                    error = e;
                }
            }
            for (Entry each : batch) {
                if (each.durable() != null) {
                    if (error == null) {
                        each.durable().complete(null);
                    } else {
                        each.durable().completeExceptionally(error);
                    }
                }
            }
            batch.clear();
        }
        // Decisions asked for after the stop are not written: their commits fail rather than wait.
        queue.drainTo(batch);
        IOException stopped = new IOException("the transaction log " + logFile + " is closed");
        for (Entry each : batch) {
            if (each.durable() != null) {
                each.durable().completeExceptionally(stopped);
            }
        }
    }

    /**
     * Stops writing. With nothing in doubt the log and its lock go; otherwise they stay for the
     * next start to finish.
     */
    @Override
    public void close() {
        queue.add(STOP);
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            channel.close();
            if (pending.isEmpty() && failed == null && !writer.isAlive()) {
                Files.deleteIfExists(logFile);
                Files.deleteIfExists(lockFile);
            } else {
                LOG.warn("transaction log {} keeps {} commit decisions not yet carried out on every data source: the next"
                        + " start finishes them", logFile, pending.size());
            }
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.warn("closing the transaction log {}: {}", logFile, e.toString());
        }
        for (Taken each : taken) {
            if (each.lockChannel().isOpen()) {
                try {
                    each.lock().release();
                    each.lockChannel().close();
                } catch (IOException ignored) {
                    // the process ends the lock anyway
                }
            }
        }
    }

    private static void forceDirectory(Path directory) {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // Not every file system lets a directory be opened; the new file's entry then rides on its first fsync.
        }
    }
}
