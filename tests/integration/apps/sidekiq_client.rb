# The test's Sidekiq client: one process for a whole test class (Ruby and Sidekiq load once).
# Reads one JSON request a line on stdin, answers one line "OUT <json>" on stdout; a Ruby
# error is answered as {"error": "Class: message"} so the test shows it.
require "json"
require "sidekiq/api"
require_relative "sidekiq_app"

def entry(e)
  i = e.item
  {"jid" => e.jid, "class" => i["class"], "args" => i["args"], "queue" => i["queue"],
   "retry" => i["retry"], "retry_count" => i["retry_count"],
   "error_class" => i["error_class"], "error_message" => i["error_message"],
   "score" => e.score}
end

def handle(req)
  case req["op"]
  when "perform_async"
    job = req["queue"] ? RecordJob.set(queue: req["queue"]) : RecordJob
    req["args"].map { |a| job.perform_async(req["list"], a) }
  when "push_bulk"
    Sidekiq::Client.push_bulk("class" => RecordJob,
                              "args" => req["args"].map { |a| [req["list"], a] })
  when "perform_in"
    jid = StampJob.perform_in(req["in"], req["list"], req["arg"])
    job = Sidekiq::ScheduledSet.new.find_job(jid)
    {"jid" => jid, "at" => job && job.score, "scheduled_size" => Sidekiq::ScheduledSet.new.size}
  when "fail"
    FailJob.perform_async(req["list"], req["arg"])
  when "sets"
    {"retry" => Sidekiq::RetrySet.new.map { |e| entry(e) },
     "dead" => Sidekiq::DeadSet.new.map { |e| entry(e) },
     "schedule" => Sidekiq::ScheduledSet.new.map { |e| entry(e) }}
  when "retry_due_now"
    # The retry comes due now: the scheduler's poller (the Lua ZRANGEBYSCORE + ZREM) moves
    # it back to its queue as it would after the retry delay (15 s and more in Sidekiq 6).
    Sidekiq::RetrySet.new.map { |e| e.reschedule(Time.now); e.jid }
  when "queue_clear"
    Sidekiq::Queue.new(req["name"]).clear
    Sidekiq::Queue.all.map { |q| [q.name, q.size] }
  when "stats"
    s = Sidekiq::Stats.new
    {"processed" => s.processed, "failed" => s.failed, "enqueued" => s.enqueued,
     "scheduled_size" => s.scheduled_size, "retry_size" => s.retry_size,
     "dead_size" => s.dead_size, "processes_size" => s.processes_size, "queues" => s.queues}
  when "processes"
    Sidekiq::ProcessSet.new.map { |p|
      {"identity" => p.identity, "pid" => p["pid"], "hostname" => p["hostname"],
       "concurrency" => p["concurrency"], "queues" => p["queues"], "busy" => p["busy"],
       "quiet" => p["quiet"], "beat" => p["beat"], "tag" => p["tag"]}
    }
  else
    raise ArgumentError, "unknown op #{req["op"].inspect}"
  end
end

$stdout.sync = true
$stdin.each_line do |line|
  out = begin
    {"ok" => handle(JSON.parse(line))}
  rescue => e
    {"error" => "#{e.class}: #{e.message}"}
  end
  puts "OUT #{JSON.generate(out)}"
end
