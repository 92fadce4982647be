# The Sidekiq application of test_apps_sidekiq.py: `sidekiq -r THIS -c 5 -q default`, and
# required by sidekiq_client.rb so both sides know the job classes. Redis comes from
# REDIS_URL. Every job leaves its effect in a list, so the test sees each run exactly.
require "sidekiq"
require "sidekiq/scheduled"

# redis-rb 4.8 warns on each positional BRPOP timeout Sidekiq 6.4 sends.
Redis.silence_deprecations = true

# The scheduled/retry poller every ~0.2 s (a fixed average: no process-count scaling).
Sidekiq.options[:poll_interval_average] = 0.2

module QuickFirstPoll
  # Sidekiq sleeps 5-15 s before its first poll so that a fleet started together does not
  # poll together; one test process does not need that, and the test's waits are bounded.
  private def initial_wait
    @sleeper.pop(0.2)
  rescue Timeout::Error
  end
end
Sidekiq::Scheduled::Poller.prepend(QuickFirstPoll)

# SIDEKIQ_NAMESPACE set: every Sidekiq key is "NAMESPACE:key" (redis-namespace). With a
# {hash tag} as the namespace all of them live on one Ruvio worker, so Sidekiq's MULTIs and
# its BRPOP over several queues need no cross-worker step through the proxy port.
if (ns = ENV["SIDEKIQ_NAMESPACE"])
  redis = {url: ENV.fetch("REDIS_URL"), namespace: ns}
  Sidekiq.configure_server { |config| config.redis = redis }
  Sidekiq.configure_client { |config| config.redis = redis }
end

# The test waits for this line (Sidekiq logs "Starting processing" only on a terminal).
Sidekiq.configure_server do |config|
  config.on(:startup) { Sidekiq.logger.info("ruvio-test: booted, launching") }
end

# RPUSH list arg: one element per run.
class RecordJob
  include Sidekiq::Worker

  def perform(list, arg)
    Sidekiq.redis { |c| c.rpush(list, arg) }
  end
end

# RPUSH list "arg time-of-run": the test compares the run's time with the job's `at`.
class StampJob
  include Sidekiq::Worker

  def perform(list, arg)
    Sidekiq.redis { |c| c.rpush(list, "#{arg} #{format("%.6f", Time.now.to_f)}") }
  end
end

class RuvioTestError < StandardError; end

# Records the attempt, then fails: with retry: 1 the first failure goes to the retry set
# (retry_count 0), the second to the dead set (retry_count 1).
class FailJob
  include Sidekiq::Worker
  sidekiq_options retry: 1

  def perform(list, arg)
    Sidekiq.redis { |c| c.rpush(list, arg) }
    raise RuvioTestError, "boom #{arg}"
  end
end
